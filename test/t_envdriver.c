/*
 * t_envdriver -- h5sf chosen through the environment, with no h5sf call in
 * the program: HDF5_DRIVER=h5sf and HDF5_DRIVER_CONFIG="key=value,...".
 *
 * HDF5 reads both variables once, when the library initializes
 * (H5P__facc_set_def_driver, from H5P_init), and makes h5sf the driver of
 * the default fapl and of every new one.  The program calls no driver
 * function: it names its communicator on a new fapl (H5Pset_mpi_params),
 * as a parallel program must for any driver (H5P_DEFAULT names none and
 * opens serially: t_serial); every rank creates the same file, writes its
 * slab, closes, reopens and reads everything.  Checked: the default fapl's
 * driver is h5sf, the new fapl's and the open file's too, the data, and
 * the subfiles on disk (count and stripe size from HDF5_DRIVER_CONFIG when
 * it gives plain numbers).
 *
 * ctest runs it with the variables set; run by hand without them it sets
 * HDF5_DRIVER=h5sf and HDF5_DRIVER_CONFIG=stripe_size=65536,stripe_count=3
 * itself before the first HDF5 call.
 *
 * Usage: mpiexec -n N t_envdriver [dir]  (dir: argv[1], $H5SF_TEST_DIR or a
 *        fresh /tmp/h5sf-env-XXXXXX, removed on success)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf_test.h"

#define N_PER_RANK 70001

/* Plain decimal "key=<digits>" in a config string; -1 if absent or not plain. */
static long long config_number(const char *cfg, const char *key)
{
    size_t      kl = strlen(key);
    const char *p  = cfg;
    while (p && *p) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            char     *end;
            long long v = strtoll(p + kl + 1, &end, 10);
            return (*end == 0 || *end == ',') && end != p + kl + 1 ? v : -1;
        }
        p = strchr(p, ',');
        if (p)
            p++;
    }
    return -1;
}

int main(int argc, char **argv)
{
    /* Before the first HDF5 call (t_init's): HDF5 reads these at
     * initialization. */
    if (!getenv("HDF5_DRIVER") || !*getenv("HDF5_DRIVER")) {
        setenv("HDF5_DRIVER", "h5sf", 1);
        setenv("HDF5_DRIVER_CONFIG", "stripe_size=65536,stripe_count=3", 1);
    }
    t_init(&argc, &argv, "t_envdriver");
    const char *drv       = getenv("HDF5_DRIVER");
    const char *cfg       = getenv("HDF5_DRIVER_CONFIG") ? getenv("HDF5_DRIVER_CONFIG") : "";
    long long   want_size = config_number(cfg, "stripe_size"), want_count = config_number(cfg, "stripe_count");

    char dir[4096] = "";
    int  made_dir  = t_test_dir(argc > 1 ? argv[1] : NULL, "env", dir, sizeof dir);
    if (t_rank == 0)
        printf("t_envdriver: %d ranks, HDF5_DRIVER=%s HDF5_DRIVER_CONFIG=%s, directory %s\n", t_size, drv, cfg, dir);

    /* The default fapl uses the driver named in the environment. */
    if (H5open() < 0) {
        fprintf(stderr, "[rank %d] FATAL: H5open failed with HDF5_DRIVER=%s\n", t_rank, drv);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    htri_t reg = H5FDis_driver_registered_by_name(drv);
    CHECK(reg > 0, "driver '%s' is not registered after H5open", drv);
    hid_t named   = H5Pcreate(H5P_FILE_ACCESS);
    hid_t want_id = H5I_INVALID_HID;
    CHECK(H5Pset_driver_by_name(named, drv, NULL) >= 0 && (want_id = H5Pget_driver(named)) >= 0,
          "H5Pset_driver_by_name(%s) failed", drv);
    CHECK(H5Pget_driver(H5P_FILE_ACCESS_DEFAULT) == want_id, "the default fapl's driver is not '%s'", drv);
    hid_t fresh = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pget_driver(fresh) == want_id, "a new fapl's driver is not '%s'", drv);
    H5Pclose(fresh);

    char path[8192];
    snprintf(path, sizeof path, "%s/env_np%d.h5", dir, t_size);

    /* Write: a new fapl (the driver from the environment) naming the
     * communicator, H5P_DEFAULT everywhere else. */
    hid_t shared = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(shared >= 0 && H5Pset_mpi_params(shared, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0, "H5Pset_mpi_params failed");
    hid_t f  = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, shared);
    int   ok = f >= 0, nok = 0;
    MPI_Allreduce(&ok, &nok, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (nok != t_size) {
        fprintf(stderr, "[rank %d] FATAL: H5Fcreate with a new fapl failed on %d of %d ranks\n", t_rank, t_size - nok,
                t_size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    hid_t acc = H5Fget_access_plist(f);
    CHECK(acc >= 0 && H5Pget_driver(acc) == want_id, "the open file's fapl does not use '%s'", drv);
    if (acc >= 0)
        H5Pclose(acc);

    hsize_t dims = (hsize_t)t_size * N_PER_RANK, start = (hsize_t)t_rank * N_PER_RANK, count = N_PER_RANK;
    hid_t   fs  = H5Screate_simple(1, &dims, NULL);
    hid_t   ms  = H5Screate_simple(1, &count, NULL);
    hid_t   d   = H5Dcreate2(f, "data", H5T_STD_I32LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int    *buf = malloc(sizeof(int) * dims);
    if (d < 0 || !buf) {
        fprintf(stderr, "[rank %d] FATAL: H5Dcreate2 or malloc failed\n", t_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (hsize_t i = 0; i < count; i++)
        buf[i] = t_pat_int(1, start + i);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) >= 0, "H5Dwrite failed");
    H5Dclose(d);
    H5Sclose(ms);
    H5Sclose(fs);
    CHECK(H5Fclose(f) >= 0, "H5Fclose failed");
    MPI_Barrier(MPI_COMM_WORLD);

    /* The file on disk is subfiled. */
    if (t_rank == 0) {
        struct stat st;
        char        p2[8300], line[8192];
        CHECK(stat(path, &st) == 0, "no stub %s", path);
        uint64_t ino = (uint64_t)st.st_ino;
        snprintf(p2, sizeof p2, "%s.subfile_%" PRIu64 ".config", path, ino);
        FILE     *fp   = fopen(p2, "r");
        long long size = -1, cnt = -1;
        CHECK(fp != NULL, "no subfiling config file %s: the file was not written through h5sf", p2);
        if (fp) {
            while (fgets(line, sizeof line, fp)) {
                if (!strncmp(line, "stripe_size=", 12))
                    size = strtoll(line + 12, NULL, 10);
                else if (!strncmp(line, "subfile_count=", 14))
                    cnt = strtoll(line + 14, NULL, 10);
            }
            fclose(fp);
        }
        if (want_size > 0)
            CHECK(size == want_size, "stripe_size=%lld on disk, HDF5_DRIVER_CONFIG asked %lld", size, want_size);
        if (want_count > 0)
            CHECK(cnt == want_count, "subfile_count=%lld on disk, HDF5_DRIVER_CONFIG asked %lld", cnt, want_count);
        for (long long i = 1; i <= cnt && cnt <= 65536; i++) {
            if (snprintf(p2, sizeof p2, "%s.subfile_%" PRIu64 "_%0*lld_of_%lld", path, ino, t_ndigits((long long)cnt),
                         i, cnt) >= (int)sizeof p2)
                continue;
            CHECK(stat(p2, &st) == 0, "subfile %s missing", p2);
        }
    }

    /* Read back, everything, on every rank. */
    f  = H5Fopen(path, H5F_ACC_RDONLY, shared);
    ok = f >= 0;
    MPI_Allreduce(&ok, &nok, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (nok != t_size) {
        fprintf(stderr, "[rank %d] FATAL: H5Fopen with a new fapl failed on %d of %d ranks\n", t_rank, t_size - nok,
                t_size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    d = H5Dopen2(f, "data", H5P_DEFAULT);
    memset(buf, 0, sizeof(int) * dims);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "H5Dread failed");
    long bad = 0;
    for (hsize_t g = 0; g < dims; g++)
        if (buf[g] != t_pat_int(1, g) && ++bad <= 8)
            fprintf(stderr, "[rank %d] MISMATCH dataset data element %llu: got %d expected %d\n", t_rank,
                    (unsigned long long)g, buf[g], t_pat_int(1, g));
    CHECK(bad == 0, "%ld mismatching elements", bad);
    if (d >= 0)
        H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "H5Fclose after read failed");
    free(buf);
    H5Pclose(named);
    H5Pclose(shared);

    long mine = t_fails, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (t_rank == 0) {
        if (!total) {
            char p2[8300], prefix[300];
            DIR *dp = opendir(dir);
            snprintf(prefix, sizeof prefix, "env_np%d.h5", t_size);
            struct dirent *e;
            while (dp && (e = readdir(dp)))
                if (!strncmp(e->d_name, prefix, strlen(prefix))) {
                    snprintf(p2, sizeof p2, "%s/%s", dir, e->d_name);
                    unlink(p2);
                }
            if (dp)
                closedir(dp);
            if (made_dir)
                rmdir(dir);
        }
        else
            printf("t_envdriver: files kept in %s\n", dir);
    }
    H5close();
    return t_finish();
}
