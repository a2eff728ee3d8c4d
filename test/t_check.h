/*
 * t_check.h -- what the small MPI tests (t_comm, t_eof, t_userblock,
 * t_iocpieces, t_timeout) share:
 * a CHECK that counts failures with this rank's number, the verdict every
 * rank agrees on, an emptied work directory, and finding a subfile by the
 * tail of its name.
 * Header-only: each test is one .c file.
 */
#ifndef T_CHECK_H
#define T_CHECK_H

#include <dirent.h>
#include <sys/stat.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failures;

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__);                                             \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* Sum of every rank's failures; rank 0 prints the verdict.  Exit status. */
static inline int t_verdict(const char *name)
{
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %s (%d ranks)\n", name, all ? "FAILED" : "passed", size);
    return all ? 1 : 0;
}

/* Make dir (and its parents) and empty it: no file of an earlier run.
 * Call on one rank, then barrier.  (HDF5 first opens an existing file
 * without H5F_ACC_TRUNC to see whether it is open already: a test that
 * injects one fault into an open must not leave a file for that probe.) */
static inline void t_fresh_dir(const char *dir)
{
    char           p[8192];
    DIR           *dp;
    struct dirent *de;
    snprintf(p, sizeof p, "%s", dir);
    for (char *q = p + 1; *q; q++)
        if (*q == '/') {
            *q = '\0';
            mkdir(p, 0777);
            *q = '/';
        }
    mkdir(p, 0777);
    if ((dp = opendir(dir))) {
        while ((de = readdir(dp)))
            if (de->d_name[0] != '.') {
                snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
                unlink(p);
            }
        closedir(dp);
    }
}

/* Path of subfile k (1-based, as in the names) of n, of the file whose
 * stub is dir/base: its name is <base>.subfile_<inode>_<k>_of_<n>. */
static inline int t_subfile(const char *dir, const char *base, int k, int n, char *out, size_t len)
{
    char           tail[32];
    DIR           *dp = opendir(dir);
    struct dirent *de;
    int            found = -1;
    snprintf(tail, sizeof tail, "_%d_of_%d", k, n);
    while (dp && (de = readdir(dp))) {
        size_t l = strlen(de->d_name), t = strlen(tail);
        if (!strncmp(de->d_name, base, strlen(base)) && strstr(de->d_name, ".subfile_") && l > t &&
            !strcmp(de->d_name + l - t, tail)) {
            snprintf(out, len, "%s/%s", dir, de->d_name);
            found = 0;
        }
    }
    if (dp)
        closedir(dp);
    return found;
}

#endif
