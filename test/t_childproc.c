/*
 * t_childproc -- a serial child process of an MPI rank opens files through
 * h5sf (h5py's multiprocessing tests, a subprocess in a job script, a Dask
 * worker).  Under HDF5_DRIVER=h5sf the ranks write a subfiled file on
 * MPI_COMM_WORLD; rank 0 then starts this program again (posix_spawn, the
 * rank's environment inherited) twice: "child-read" reads the ranks' file
 * with H5P_DEFAULT, "child-rw" creates, writes and reads back a file of its
 * own.  Each child checks the data against the known pattern and that MPI
 * is still uninitialized afterwards.  h5sf used to initialize MPI there:
 * MPI_Init failed in the child (the rank's MPI environment is not the
 * child's), and Open MPI 4.1's parent then spun in MPI_Finalize.  A child
 * that takes over 60 s is killed and fails the test; an alarm turns a hang
 * of the parent (MPI_Finalize included) into a failure.
 *
 * No link to libh5sf: the driver comes in through the plugin loader, as for
 * a Python program.
 *
 * usage: mpiexec -n N t_childproc FILE   (the children: t_childproc
 * child-read|child-rw FILE)
 */
#include <errno.h>
#include <hdf5.h>
#include <mpi.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "h5sf_test.h"

extern char **environ;

#define N 20000 /* elements per rank */

static int write_file(const char *path, hid_t fapl, int seed, int rank, int size)
{
    hid_t f = t_create_pattern(path, fapl, seed, N, rank, size);
    return (f < 0 || H5Fclose(f) < 0) ? -1 : 0;
}

/* Every element of "v" against the pattern; want: the element count. */
static int check_file(const char *path, int seed, hsize_t want)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return -1;
    hid_t   d  = H5Dopen2(f, "v", H5P_DEFAULT);
    hid_t   sp = H5Dget_space(d);
    hsize_t n  = 0;
    H5Sget_simple_extent_dims(sp, &n, NULL);
    int *buf = malloc((n ? n : 1) * sizeof *buf);
    int  bad = n != want || H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0;
    CHECK(n == want, "%s: %llu elements, want %llu", path, (unsigned long long)n, (unsigned long long)want);
    for (hsize_t i = 0; i < n && !bad; i++)
        if (buf[i] != t_pat_int(seed, i)) {
            CHECK(0, "%s: element %llu: got %d want %d", path, (unsigned long long)i, buf[i], t_pat_int(seed, i));
            bad = 1;
        }
    free(buf);
    H5Sclose(sp);
    H5Dclose(d);
    return (H5Fclose(f) < 0 || bad) ? -1 : 0;
}

/* A serial program: no MPI call but the two the standard allows before
 * MPI_Init. */
static int child(const char *mode, const char *path, const char *nranks)
{
    int init = 1, fin = 1;
    t_start(mode); /* no t_init: the child is a serial program, MPI must stay down */
    if (!strcmp(mode, "child-read"))
        CHECK(check_file(path, 1, (hsize_t)N * (hsize_t)atoi(nranks)) >= 0, "read the ranks' file");
    else {
        CHECK(write_file(path, H5P_DEFAULT, 2, 0, 1) >= 0, "create and write");
        CHECK(check_file(path, 2, N) >= 0, "read back");
    }
    H5close();
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    CHECK(!init && !fin, "MPI was initialized (%d) or finalized (%d) in the child", init, fin);
    return t_verdict();
}

/* Start this program in mode; its exit status, or -1 if it failed to start,
 * died of a signal or ran past 60 s (then killed). */
static int run_child(const char *mode, const char *path, int nranks)
{
    char  n[16];
    pid_t pid;
    snprintf(n, sizeof n, "%d", nranks);
    char *argv[] = {"t_childproc", (char *)mode, (char *)path, n, NULL};
    int   rc     = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    if (rc != 0) {
        CHECK(0, "posix_spawn: %s", strerror(rc));
        return -1;
    }
    int status = 0;
    for (int ms = 0; ms < 60000; ms += 50) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    CHECK(0, "%s: still running after 60 s (killed)", mode);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strncmp(argv[1], "child-", 6))
        return child(argv[1], argv[2], argv[3]);
    if (argc < 2) {
        fprintf(stderr, "usage: mpiexec -n N t_childproc FILE\n");
        return 2;
    }
    alarm(240); /* a hang anywhere, MPI_Finalize included, fails */
    t_init(&argc, &argv, "t_childproc");
    const char *path = argv[1];
    char        own[4096];
    snprintf(own, sizeof own, "%s.child", path);
    CHECK(getenv("HDF5_DRIVER") && !strcmp(getenv("HDF5_DRIVER"), "h5sf"), "run with HDF5_DRIVER=h5sf");

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0, "H5Pset_mpi_params");
    CHECK(write_file(path, fapl, 1, t_rank, t_size) >= 0, "the ranks write %s", path);
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        int rc = run_child("child-read", path, t_size);
        CHECK(rc == 0, "child-read: exit status %d", rc);
        rc = run_child("child-rw", own, t_size);
        CHECK(rc == 0, "child-rw: exit status %d", rc);
    }
    return t_finish();
}
