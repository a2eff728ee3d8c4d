/*
 * t_servefail.c -- an IOC thread that fails to start while h5sf opens a file
 * on the IOC channel: every rank's open fails with the reason, the failing
 * rank keeps no IOC thread, and the next open, or MPI_Finalize, works.
 *
 * The program defines uv_thread_create itself (exported, so it is the one
 * libh5sf's calls reach) and passes the calls on to libuv's, except the
 * START-th one on the last rank, which fails with UV_EAGAIN as
 * pthread_create does at a thread limit.  With threads=2, start 2 is the
 * second worker (the first is running), start 3 the progress thread (both
 * workers are running).  Only the IOC's threads start through libuv here.
 *
 *   reopen    the next H5Fcreate works and round-trips a pattern, then close
 *   finalize  MPI_Finalize right after the failed open (it ends the parked
 *             IOC context, which must have no thread left on it)
 *
 * The watchdog turns a hang into a failure.
 * usage: t_servefail DIR START reopen|finalize
 */
#include <dirent.h>
#include <dlfcn.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>
#include "h5sf.h"
#include "h5sf_test.h"

/* Set before any IOC thread exists; only the opening thread starts them. */
static int fail_at, starts;

int uv_thread_create(uv_thread_t *tid, uv_thread_cb entry, void *arg)
{
    static int (*real)(uv_thread_t *, uv_thread_cb, void *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "uv_thread_create");
    if (++starts == fail_at)
        return UV_EAGAIN;
    return real ? real(tid, entry, arg) : UV_ENOSYS;
}

/* IOC threads of this process (ioc/affinity.c names them h5sf-*). */
static int ioc_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int  n = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        char  p[300], name[32] = "";
        FILE *f;
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "/proc/self/task/%s/comm", de->d_name);
        if ((f = fopen(p, "r"))) {
            if (fgets(name, sizeof name, f) && !strncmp(name, "h5sf-", 5))
                n++;
            fclose(f);
        }
    }
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    char               path[4096];
    static t_errtext_t t;
    const char        *msg = t.desc;
    t_init(&argc, &argv, "t_servefail");
    if (argc != 4 || (strcmp(argv[3], "reopen") && strcmp(argv[3], "finalize")))
        MPI_Abort(MPI_COMM_WORLD, 2);
    bool reopen = !strcmp(argv[3], "reopen");
    t_step(60, "the opens"); /* a hang is the defect */
    if (t_rank == 0)         /* no file of an earlier run: HDF5 would probe it first */
        t_fresh_dir(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/servefail.h5", argv[1]);
    CHECK(H5FD_h5sf_init() >= 0, "cannot register h5sf");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_driver_by_name(fapl, "h5sf", "channel=ioc,ioc=every:1,threads=2,stripe_size=4096,stripe_count=2");

    hid_t f;
    if (t_rank == t_size - 1)
        fail_at = atoi(argv[2]);
    H5E_BEGIN_TRY { f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl); }
    H5E_END_TRY
    fail_at = 0;
    CHECK(f < 0, "the open succeeded although IOC thread start %s failed on rank %d", argv[2], t_size - 1);
    if (f >= 0)
        H5Fclose(f);
    else {
        t_errors(&t);
        CHECK(strstr(msg, "cannot start") != NULL, "the error does not name the thread start: \"%s\"", msg);
    }
    if (t_rank == t_size - 1) {
        int n = ioc_threads();
        CHECK(n == 0, "%d IOC threads left running after the failed open (start %s failed)", n, argv[2]);
    }
    if (reopen) {
        f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        CHECK(f >= 0, "the open after the failed one failed too");
        if (f >= 0) {
            t_small_roundtrip(f, 4096 * 2);
            CHECK(H5Fclose(f) >= 0, "close");
        }
    }
    H5Pclose(fapl);
    int all = t_verdict();
    MPI_Finalize();
    return all;
}
