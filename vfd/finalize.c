/*
 * finalize.c -- MPI_Finalize with h5sf files still open: the hook h5sf.c
 * registers at the first open (mpi.c runs it from MPI_COMM_SELF's delete
 * callback).  It drains open COBEGIN brackets, stops the IOCs, moves the
 * files to the direct channel and closes them through the public API, and
 * marks what is left so that it never talks to MPI again.
 * Owns no state of its own; must not be called but from that hook.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "threadpool.h"

/* Ids fetched at a time when the hook has no memory for the whole list. */
#define FIN_BATCH 256

/* Close the objects open in file `id`, FIN_BATCH ids at a time (no
 * allocation): until none is left, or a round closes none (the
 * application holds more references to them). */
static void close_objects(hid_t id)
{
    hid_t   objs[FIN_BATCH];
    ssize_t before = H5Fget_obj_count(id, H5F_OBJ_ALL & ~H5F_OBJ_FILE);
    while (before > 0) {
        ssize_t m = H5Fget_obj_ids(id, H5F_OBJ_ALL & ~H5F_OBJ_FILE, FIN_BATCH, objs);
        for (ssize_t k = 0; k < m; k++)
            H5I_ATTR == H5Iget_type(objs[k]) ? H5Aclose(objs[k]) : H5Oclose(objs[k]);
        ssize_t after = H5Fget_obj_count(id, H5F_OBJ_ALL & ~H5F_OBJ_FILE);
        if (m <= 0 || after >= before)
            break;
        before = after;
    }
}

/* If file `id` is one of ours, close it and the objects in it; a failure
 * is said on stderr, once per file, since nobody else will see it: what the
 * file's last writes were told was written may be lost.  Returns whether
 * the id is gone. */
static bool close_if_ours(hid_t id)
{
    /* Ours if its name is one of our open files' (driver ids may differ
     * between the plugin loader's registration and ours). */
    char         name[4096];
    h5sf_file_t *f = NULL;
    if (H5Fget_name(id, name, sizeof name) > 0)
        for (f = h5sf_registry_first(); f && strcmp(f->name, name); f = f->next)
            ;
    if (!f)
        return false;
    int rank = f->rank; /* f is freed by the close */
    close_objects(id);
    if (H5Fclose(id) < 0) {
        h5sf_errbuf_t eb;
        h5sf_err_capture(&eb, "H5Fclose failed");
        fprintf(stderr, "h5sf: rank %d: %s was left open at MPI_Finalize, and closing it there failed: %s\n", rank,
                name, eb.msg);
    }
    return H5Iis_valid(id) <= 0;
}

/* Close, through the public API, every file open with h5sf and the objects
 * in it.  Run from the MPI_Finalize hook, when every rank is in MPI_Finalize
 * and MPI still works, so the closes are collective as they must be -- and
 * every rank must reach them: without memory for the list of ids, the ids
 * come FIN_BATCH at a time, again until none of the first is ours (with
 * more than FIN_BATCH files of other drivers open, ours beyond them would
 * be left to HDF5's own close at exit). */
static void close_open_h5sf_files(void)
{
    hid_t   batch[FIN_BATCH], *ids = NULL;
    ssize_t n     = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
    int     wrank = 0;
    if (n <= 0)
        return;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    /* Test-only: the allocation fails (H5SF_FAULT op=nomem-finalize). */
    if (!h5sf_fault("nomem-finalize", wrank) && (ids = h5sf_malloc((size_t)n * sizeof *ids))) {
        n = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, (size_t)n, ids);
        for (ssize_t i = 0; i < n; i++)
            close_if_ours(ids[i]);
        h5sf_free(ids);
        return;
    }
    for (bool closed = true; closed;) {
        closed = false;
        n      = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, FIN_BATCH, batch);
        for (ssize_t i = 0; i < n; i++)
            closed |= close_if_ours(batch[i]);
    }
}

/* MPI_Finalize is starting with files still open.  MPICH no longer
 * serializes threads there, so first this thread and the IOC threads take
 * turns inside MPI, one call at a time (the finalize gate, ioc/gate.c).
 * COBEGIN brackets left open (on H5FDopen'ed files too) are waited for
 * while every rank's IOCs still serve; then the IOC daemons stop, the files
 * of the IOC channel reach their subfiles directly, and the files are
 * closed properly while MPI works.  Whatever is left must not talk to MPI
 * any more: mark it.  Failures nobody else would see go to stderr, one
 * line per file (docs/reliability.md, "MPI is finalized while files are
 * open"). */
void h5sf_on_mpi_finalize(void)
{
    h5sf_errbuf_t eb;
    h5sf_ioc_finalize_begin();
    for (h5sf_file_t *f = h5sf_registry_first(); f; f = f->next)
        if (f->co)
            h5sf_bracket_drain(f, &eb); /* the outcome stays the bracket's */
    h5sf_ioc_finalize_stop();
    for (h5sf_file_t *f = h5sf_registry_first(); f; f = f->next) {
        if (h5sf_channels_direct(f, &eb) < 0)
            fprintf(stderr,
                    "h5sf: rank %d: %s was left open at MPI_Finalize and cannot be closed without its "
                    "I/O concentrators: %s\n",
                    f->rank, f->name, eb.msg);
    }
    if (h5sf_registry_first()) {
        H5E_BEGIN_TRY { close_open_h5sf_files(); }
        H5E_END_TRY
    }
    /* Left: files opened with H5FDopen.  A bracket of theirs is reported
     * by its COEND or the close, both after MPI_Finalize: say a failure now
     * too, in case neither comes. */
    for (h5sf_file_t *f = h5sf_registry_first(); f; f = f->next) {
        if (f->co) {
            f->co_finalized = true;
            if (h5sf_bracket_drain(f, &eb) < 0)
                fprintf(stderr,
                        "h5sf: rank %d: %s: a transfer of the COBEGIN bracket left open at MPI_Finalize failed: %s\n",
                        f->rank, f->name, eb.msg);
        }
        f->mpi_dead = true;
        f->ctx      = NULL; /* freed next, also where the move to the direct channel failed */
    }
    h5sf_ioc_shutdown_all();
    h5sf_pool_shutdown();
    h5sf_topology_forget();
}
