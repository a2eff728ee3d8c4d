/*
 * t_ownstall_fuse.c -- every rank's H5Dwrite and H5Fclose return within
 * the timeout when the IOC rank's subfiles stop answering, with no fault
 * injection: the subfiles live on a FUSE file system (fuse_stall) whose
 * writes block while a trigger file exists.
 *
 * Two ranks, one IOC (rank 0) with one worker serving both subfiles,
 * timeout=2, all I/O through the IOC (H5SF_IOC_LOCAL_READS=0,
 * H5SF_IOC_LOCAL_WRITES=0, set by the test's registration): rank 0's writes
 * are requests to its own IOC, rank 1's to a remote one.  The file is
 * created and flushed, then rank 0 creates the trigger and each rank writes
 * 1 MiB (both subfiles) with H5Dwrite.  The one worker stalls on the first
 * request it takes, so some request of rank 0 is still queued when rank 0
 * waits for it: where the waiting thread ran such a request itself, it
 * stalled in pwritev with it.
 *
 * Checked: each H5Dwrite fails within the timeout plus SLACK_S, and
 * H5Fclose returns (failing or not) within two timeouts plus SLACK_S --
 * while the trigger still exists.  A guard thread on rank 0 removes the
 * trigger after GUARD_S in any case, so that a rank whose call waits for
 * the stalled write fails instead of hanging.
 *
 * usage: mpiexec -n 2 t_ownstall_fuse DIR SUBFILE_DIR TRIGGER
 */
#include <errno.h>
#include <hdf5.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "h5sf.h"
#include "t_check.h"

#define TIMEOUT_S 2
#define SLACK_S   3.0
#define GUARD_S   40
#define LEN       ((size_t)1 << 20)

static const char     *trigger;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t  cv = PTHREAD_COND_INITIALIZER;
static bool            done, by_guard;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Remove the trigger: the stalled writes go on. */
static void unstall(bool guard)
{
    pthread_mutex_lock(&mu);
    if (!done) {
        done     = true;
        by_guard = guard;
        unlink(trigger);
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
}

static void *guard_main(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += GUARD_S;
    pthread_mutex_lock(&mu);
    while (!done && pthread_cond_timedwait(&cv, &mu, &ts) == 0)
        ;
    pthread_mutex_unlock(&mu);
    if (!done)
        fprintf(stderr, "t_ownstall_fuse: rank 0: guard: the stall is released after %d s\n", GUARD_S);
    unstall(true);
    return NULL;
}

/* Rank 0: the stall is still on (no guard release so far). */
static bool still_stalled(void)
{
    pthread_mutex_lock(&mu);
    bool on = !done;
    pthread_mutex_unlock(&mu);
    return on;
}

int main(int argc, char **argv)
{
    int       provided;
    char      path[4096], cfg[4600];
    pthread_t guard;
    if (argc != 4) {
        fprintf(stderr, "usage: t_ownstall_fuse DIR SUBFILE_DIR TRIGGER\n");
        return 2;
    }
    trigger = argv[3];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "t_ownstall_fuse: needs 2 ranks and MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(path, sizeof path, "%s/ownstall.h5", argv[1]);
    snprintf(cfg, sizeof cfg,
             "stripe_size=64KiB,stripe_count=2,ioc=ranks:0,threads=1,channel=ioc,timeout=%d,"
             "subfile_dir=%s",
             TIMEOUT_S, argv[2]);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    if (H5FD_h5sf_init() < 0 || H5Pset_driver_by_name(fapl, "h5sf", cfg) < 0) {
        fprintf(stderr, "t_ownstall_fuse: cannot select h5sf with \"%s\"\n", cfg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
        fprintf(stderr, "t_ownstall_fuse: rank %d: H5Fcreate(%s) failed\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hsize_t n     = (hsize_t)LEN * 2;
    hid_t   space = H5Screate_simple(1, &n, NULL);
    hid_t   d     = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0, "dataset creation or first flush failed");

    /* Stall the subfiles' file system. */
    if (rank == 0) {
        FILE *t = fopen(trigger, "w");
        CHECK(t != NULL, "cannot create the trigger %s", trigger);
        if (t)
            fclose(t);
        pthread_create(&guard, NULL, guard_main, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    unsigned char *buf = malloc(LEN);
    memset(buf, 0x40 + rank, LEN);
    hsize_t start = (hsize_t)rank * LEN, cnt = LEN;
    hid_t   fs = H5Dget_space(d), ms = H5Screate_simple(1, &cnt, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL);
    double t0 = now_s();
    herr_t rc = H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, buf);
    double tw = now_s() - t0;
    bool   on = rank != 0 || still_stalled();
    CHECK(rc < 0, "H5Dwrite succeeded after %.1f s%s", tw, on ? " while the file system stalled" : "");
    CHECK(tw < TIMEOUT_S + SLACK_S && on, "H5Dwrite returned after %.1f s (timeout %d s)%s", tw, TIMEOUT_S,
          on ? "" : ", once the guard released the stall: it waited for the stalled write");
    H5Sclose(fs);
    H5Sclose(ms);
    H5Sclose(space);
    H5Dclose(d);

    herr_t wrc = rc;
    t0         = now_s();
    rc         = H5Fclose(f);
    double tc  = now_s() - t0;
    on         = rank != 0 || still_stalled();
    CHECK(tc < 2 * TIMEOUT_S + SLACK_S && on, "H5Fclose returned after %.1f s (timeout %d s)%s", tc, TIMEOUT_S,
          on ? "" : ", once the guard released the stall");
    printf("t_ownstall_fuse: rank %d: H5Dwrite %s after %.2f s, H5Fclose %s after %.2f s\n", rank,
           wrc < 0 ? "failed" : "succeeded", tw, rc < 0 ? "failed" : "succeeded", tc);
    fflush(stdout);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unstall(false);
        pthread_join(guard, NULL);
    }
    H5Pclose(fapl);
    free(buf);
    int all = t_verdict("t_ownstall_fuse");
    MPI_Finalize();
    return all != 0;
}
