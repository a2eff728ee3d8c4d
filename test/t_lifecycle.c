/*
 * t_lifecycle.c -- MPI life cycles h5sf must survive.
 *
 *   funneled       MPI_Init_thread(FUNNELED): h5sf falls back to the direct
 *                  channel (checked with H5FD_h5sf_get_layout) and works.
 *   serial         no MPI_Init at all (like h5dump, or a child process of
 *                  an MPI rank): h5sf writes, reads back and deletes a
 *                  subfiled file, and reads a plain (sec2) one, without
 *                  initializing MPI (MPI_Initialized still says 0);
 *                  channel=ioc falls back to the direct channel.
 *   after-finalize MPI_Init, MPI_Finalize, then the serial mode's opens:
 *                  they work the same way, without MPI.
 *   finalize-open  MPI_Finalize with a file still open, not even flushed:
 *                  no hang, no crash, and the data written before is
 *                  readable afterwards (checked by a second run in mode
 *                  "check"): h5sf's MPI_Finalize hook closed it.
 *   finalize-busy  finalize-open without the pause: the IOC threads are
 *                  still polling when MPI_Finalize starts (run under the
 *                  preload shim, whose MPI_Finalize runs h5sf's hook first;
 *                  without it MPICH 4.0.2 sometimes aborts at its end).
 *   close-finalize H5Fclose, then at once MPI_Finalize: when the close
 *                  returns, no IOC thread is inside MPI.  (MPICH 4.0 turns
 *                  its locking off at the start of MPI_Finalize; a thread
 *                  inside MPI then keeps MPICH's global mutex locked, and
 *                  MPI_Finalize aborts destroying it.)  The IOC threads'
 *                  MPI_Improbe is interposed below and made slow, so that
 *                  without the wait for them a progress thread is nearly
 *                  always inside it.
 *   close-collective H5Fclose: no IOC progress thread probes while the
 *                  close's collective on the IOC context's communicator
 *                  runs (told apart by its MPI_ERRORS_RETURN handler).
 *                  Under MPICH the polling threads compete with it for
 *                  MPICH's lock; the Slurm jobs stalled there for 60-80 s.
 *                  That collective is made to last 30 ms here, longer than
 *                  one slowed probe and its back-off.
 *
 * usage: t_lifecycle MODE FILE
 */
#include <hdf5.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "h5sf.h"
#include "h5sf_test.h"

/* Threads other than main inside MPI_Improbe (the IOC progress threads),
 * and whether their calls last 20 ms.  The executable exports this
 * definition (ENABLE_EXPORTS), so h5sf's calls come here. */
static pthread_t  main_thread;
static atomic_int inside, slow_probe, probes;

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    int other = !pthread_equal(pthread_self(), main_thread);
    if (other) {
        atomic_fetch_add(&inside, 1);
        atomic_fetch_add(&probes, 1);
    }
    if (other && atomic_load(&slow_probe)) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
    if (other)
        atomic_fetch_sub(&inside, 1);
    return rc;
}

/* close-collective: probes started by other threads during the main
 * thread's collectives on IOC context communicators (h5sf sets
 * MPI_ERRORS_RETURN on those only), each made 30 ms longer. */
static atomic_int watch_coll;
static int        coll_probes, colls;

static bool ioc_comm(MPI_Comm comm)
{
    MPI_Errhandler eh;
    if (MPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS)
        return false;
    bool ret = eh == MPI_ERRORS_RETURN;
    MPI_Errhandler_free(&eh);
    return ret;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (!atomic_load(&watch_coll) || !pthread_equal(pthread_self(), main_thread) || !ioc_comm(comm))
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    int             p0 = atomic_load(&probes);
    struct timespec ts = {0, 30000000};
    nanosleep(&ts, NULL);
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    coll_probes += atomic_load(&probes) - p0;
    colls++;
    return rc;
}

#define N 50000

static int write_file(const char *path, hid_t fapl, int rank, int size, hid_t *fout)
{
    hid_t f = t_create_pattern(path, fapl, 1, N, rank, size);
    if (fout) {
        *fout = f;
        return f < 0 ? -1 : 0;
    }
    return (f < 0 || H5Fclose(f) < 0) ? -1 : 0;
}

static int check_file(const char *path, hid_t fapl)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        return -1;
    hid_t   d  = H5Dopen2(f, "v", H5P_DEFAULT);
    hid_t   sp = H5Dget_space(d);
    hsize_t n;
    H5Sget_simple_extent_dims(sp, &n, NULL);
    int *buf = malloc(n * sizeof *buf);
    int  bad = H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0;
    for (hsize_t i = 0; i < n && !bad; i++)
        if (buf[i] != t_pat_int(1, i)) {
            CHECK(0, "element %llu: got %d want %d", (unsigned long long)i, buf[i], t_pat_int(1, i));
            bad = 1;
        }
    free(buf);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
    return bad ? -1 : 0;
}

/* MPI is what the program left it: never initialized, or finalized. */
static int mpi_state(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init * 2 + fin;
}

static bool exists(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp)
        fclose(fp);
    return fp != NULL;
}

/* Serial opens (a fapl that names no communicator) of a subfiled file and
 * of a plain one: every step leaves MPI as it was. */
static int serial(const char *path)
{
    char  plain[4096];
    int   was  = mpi_state();
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), sec2 = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_driver_by_name(fapl, "h5sf", "stripe_size=4096,stripe_count=3") >= 0, "serial: select h5sf");
    CHECK(write_file(path, fapl, 0, 1, NULL) >= 0, "serial: write");
    CHECK(mpi_state() == was, "serial: the write changed MPI's state from %d to %d", was, mpi_state());
    CHECK(check_file(path, fapl) >= 0, "serial: read back");
    CHECK(mpi_state() == was, "serial: the read changed MPI's state from %d to %d", was, mpi_state());
    CHECK(H5Fdelete(path, fapl) >= 0 && !exists(path), "serial: H5Fdelete");
    CHECK(mpi_state() == was, "serial: H5Fdelete changed MPI's state from %d to %d", was, mpi_state());
    snprintf(plain, sizeof plain, "%s.plain", path);
    CHECK(H5Pset_fapl_sec2(sec2) >= 0 && write_file(plain, sec2, 0, 1, NULL) >= 0, "serial: write a sec2 file");
    CHECK(check_file(plain, fapl) >= 0, "serial: read the sec2 file through h5sf");
    CHECK(H5Fdelete(plain, fapl) >= 0 && !exists(plain), "serial: H5Fdelete of the sec2 file");
    CHECK(mpi_state() == was, "serial: the plain file changed MPI's state from %d to %d", was, mpi_state());
    /* channel=ioc: the I/O concentrators need MPI; the direct channel serves. */
    hid_t              f, ioc = H5Pcreate(H5P_FILE_ACCESS);
    H5FD_h5sf_layout_t lay = {0};
    CHECK(H5Pset_driver_by_name(ioc, "h5sf", "channel=ioc,stripe_size=4096,stripe_count=3") >= 0 &&
              write_file(path, ioc, 0, 1, &f) >= 0 && H5FD_h5sf_get_layout(f, &lay) >= 0 && H5Fclose(f) >= 0,
          "serial: write with channel=ioc");
    CHECK(lay.channel == H5FD_H5SF_CHANNEL_DIRECT, "serial: channel=ioc took channel %d, want direct (%d)", lay.channel,
          H5FD_H5SF_CHANNEL_DIRECT);
    CHECK(check_file(path, fapl) >= 0 && H5Fdelete(path, ioc) >= 0, "serial: read back and delete (channel=ioc)");
    CHECK(mpi_state() == was, "serial: channel=ioc changed MPI's state from %d to %d", was, mpi_state());
    H5Pclose(ioc);
    H5Pclose(sec2);
    H5Pclose(fapl);
    H5close(); /* HDF5's own shutdown must not start MPI either */
    CHECK(mpi_state() == was, "serial: H5close changed MPI's state from %d to %d", was, mpi_state());
    return t_verdict();
}

int main(int argc, char **argv)
{
    t_start("t_lifecycle"); /* no MPI yet: serial and after-finalize test life without it */
    if (argc < 3) {
        fprintf(
            stderr,
            "usage: t_lifecycle "
            "funneled|serial|after-finalize|finalize-open|finalize-busy|close-finalize|close-collective|check FILE\n");
        return 2;
    }
    const char *mode = argv[1], *path = argv[2];
    hid_t       fapl;
    main_thread = pthread_self();

    if (!strcmp(mode, "serial"))
        return serial(path);
    if (!strcmp(mode, "after-finalize")) {
        MPI_Init(&argc, &argv); /* MPI up and down before HDF5 starts: the mode under test */
        MPI_Finalize();
        return serial(path);
    }

    int provided = t_init_level(&argc, &argv, "t_lifecycle",
                                !strcmp(mode, "funneled") ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE);
    int rank = t_rank, size = t_size;
    /* HDF5 after MPI, as real programs do: HDF5 then closes what is left
     * open from its own MPI_Finalize hook. */
    /* The communicator through the structure: h5sf's copy keeps
     * MPI_COMM_WORLD's error handler (H5Pset_mpi_params' copy has
     * MPI_ERRORS_RETURN, by which close-collective tells the IOC context's
     * communicators). */
    H5FD_h5sf_config_t cfg;
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5FD_h5sf_config_init(&cfg);
    cfg.stripe_size = 8192;
    cfg.comm        = MPI_COMM_WORLD;
    CHECK(H5Pset_fapl_h5sf(fapl, &cfg) >= 0, "H5Pset_fapl_h5sf");

    if (!strcmp(mode, "funneled")) {
        hid_t              f;
        H5FD_h5sf_layout_t lay = {0};
        int                ok  = write_file(path, fapl, rank, size, &f) >= 0 && H5FD_h5sf_get_layout(f, &lay) >= 0;
        CHECK(ok, "funneled: write");
        if (ok)
            CHECK(provided >= MPI_THREAD_MULTIPLE || lay.channel == H5FD_H5SF_CHANNEL_DIRECT,
                  "funneled: channel %d, want direct (%d)", lay.channel, H5FD_H5SF_CHANNEL_DIRECT);
        CHECK(H5Fclose(f) >= 0 && check_file(path, fapl) >= 0, "funneled: close and read back");
    }
    else if (!strcmp(mode, "finalize-open")) {
        hid_t f;
        CHECK(write_file(path, fapl, rank, size, &f) >= 0, "finalize-open: write");
        /* No H5Fclose: MPI_Finalize must not hang or crash. */
        t_mpich_calm();
    }
    else if (!strcmp(mode, "finalize-busy")) {
        hid_t f;
        CHECK(write_file(path, fapl, rank, size, &f) >= 0, "finalize-busy: write");
        /* No H5Fclose and no pause: the IOC threads are still polling
         * when MPI_Finalize starts. */
    }
    else if (!strcmp(mode, "close-finalize")) {
        atomic_store(&slow_probe, 1);
        CHECK(write_file(path, fapl, rank, size, NULL) >= 0, "close-finalize: write");
        int in = atomic_load(&inside);
        CHECK(!in, "close-finalize: %d IOC thread(s) inside MPI_Improbe after H5Fclose returned", in);
        atomic_store(&slow_probe, 0);
    }
    else if (!strcmp(mode, "close-collective")) {
        hid_t f;
        atomic_store(&slow_probe, 1);
        CHECK(write_file(path, fapl, rank, size, &f) >= 0, "close-collective: write");
        atomic_store(&watch_coll, 1);
        herr_t closed = H5Fclose(f);
        atomic_store(&watch_coll, 0);
        atomic_store(&slow_probe, 0);
        CHECK(closed >= 0, "close-collective: H5Fclose");
        CHECK(colls > 0, "close-collective: the close made no collective on the IOC context");
        CHECK(!coll_probes, "close-collective: %d IOC probe(s) during the close's collective", coll_probes);
    }
    else if (!strcmp(mode, "check"))
        CHECK(check_file(path, fapl) >= 0, "check: read back");
    else
        CHECK(0, "unknown mode %s", mode);
    if (t_rank == 0)
        printf("t_lifecycle: %s\n", mode);
    return t_finish();
}
