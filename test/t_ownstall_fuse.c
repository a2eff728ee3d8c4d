/*
 * t_ownstall_fuse.c -- every rank's H5Dwrite and H5Fclose return within
 * the timeout when the IOC rank's subfiles stop answering, with no fault
 * injection: the subfiles live on a FUSE file system (fuse_stall) whose
 * writes block while a trigger file exists.
 *
 * Two ranks, one IOC (rank 0) with one worker serving both subfiles,
 * timeout=2, all I/O through the IOC (H5SF_SAMENODE_READS=0,
 * H5SF_SAMENODE_WRITES=0, set by the test's registration): rank 0's writes
 * are requests to its own IOC, rank 1's to a remote one.  The file is
 * created and flushed, then rank 0 creates the trigger and each rank writes
 * 1 MiB (both subfiles) with H5Dwrite.  The one worker stalls on the first
 * request it takes, so some request of rank 0 is still queued when rank 0
 * waits for it: where the waiting thread ran such a request itself, it
 * stalled in pwritev with it.
 *
 * Checked: each H5Dwrite fails within the timeout plus SLACK_S, and
 * H5Fclose returns (failing or not) within two timeouts plus SLACK_S --
 * while the trigger still exists.  Rank 0's watchdog removes the trigger
 * after GUARD_S in any case (t_on_hang), so that a rank whose call waits
 * for the stalled write fails instead of hanging.
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
#include "h5sf_test.h"

#define TIMEOUT_S 2
#define SLACK_S   3.0
#define GUARD_S   40
#define LEN       ((size_t)1 << 20)

static const char     *trigger;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t  cv = PTHREAD_COND_INITIALIZER;
static bool            done, by_guard;

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

static void unstall_by_guard(void) { unstall(true); }

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
    char path[4096], cfg[4600];
    if (argc != 4) {
        fprintf(stderr, "usage: t_ownstall_fuse DIR SUBFILE_DIR TRIGGER\n");
        return 2;
    }
    trigger = argv[3];
    t_init_multiple(&argc, &argv, "t_ownstall_fuse");
    if (t_size != 2) {
        fprintf(stderr, "t_ownstall_fuse: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(path, sizeof path, "%s/ownstall.h5", argv[1]);
    snprintf(cfg, sizeof cfg,
             "stripe_size=64KiB,stripe_count=2,ioc=ranks:0,threads=1,channel=ioc,timeout=%d,"
             "subfile_dir=%s",
             TIMEOUT_S, argv[2]);
    hid_t fapl = t_fapl(cfg);
    hid_t f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    VRFY(f >= 0, "H5Fcreate(%s) failed", path);
    hsize_t n     = (hsize_t)LEN * 2;
    hid_t   space = H5Screate_simple(1, &n, NULL);
    hid_t   d     = H5Dcreate2(f, "d", H5T_NATIVE_UCHAR, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0, "dataset creation or first flush failed");

    /* Stall the subfiles' file system. */
    if (t_rank == 0) {
        FILE *t = fopen(trigger, "w");
        CHECK(t != NULL, "cannot create the trigger %s", trigger);
        if (t)
            fclose(t);
        t_on_hang(unstall_by_guard);
        t_step(GUARD_S, "writes on the stalled file system");
    }
    MPI_Barrier(MPI_COMM_WORLD);

    unsigned char *buf = malloc(LEN);
    memset(buf, 0x40 + t_rank, LEN);
    hsize_t start = (hsize_t)t_rank * LEN, cnt = LEN;
    hid_t   fs = H5Dget_space(d), ms = H5Screate_simple(1, &cnt, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL);
    double t0 = t_now_s();
    herr_t rc = H5Dwrite(d, H5T_NATIVE_UCHAR, ms, fs, H5P_DEFAULT, buf);
    double tw = t_now_s() - t0;
    bool   on = t_rank != 0 || still_stalled();
    CHECK(rc < 0, "H5Dwrite succeeded after %.1f s%s", tw, on ? " while the file system stalled" : "");
    CHECK(tw < TIMEOUT_S + SLACK_S && on, "H5Dwrite returned after %.1f s (timeout %d s)%s", tw, TIMEOUT_S,
          on ? "" : ", once the guard released the stall: it waited for the stalled write");
    H5Sclose(fs);
    H5Sclose(ms);
    H5Sclose(space);
    H5Dclose(d);

    herr_t wrc = rc;
    t0         = t_now_s();
    rc         = H5Fclose(f);
    double tc  = t_now_s() - t0;
    on         = t_rank != 0 || still_stalled();
    CHECK(tc < 2 * TIMEOUT_S + SLACK_S && on, "H5Fclose returned after %.1f s (timeout %d s)%s", tc, TIMEOUT_S,
          on ? "" : ", once the guard released the stall");
    printf("t_ownstall_fuse: rank %d: H5Dwrite %s after %.2f s, H5Fclose %s after %.2f s\n", t_rank,
           wrc < 0 ? "failed" : "succeeded", tw, rc < 0 ? "failed" : "succeeded", tc);
    fflush(stdout);

    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        unstall(false);
        t_step_done();
    }
    H5Pclose(fapl);
    free(buf);
    int all = t_verdict();
    MPI_Finalize();
    return all != 0;
}
