/*
 * mpi.c -- MPI life cycle: the communicator a fapl names, the MPI_Finalize
 * hook, the thread level (the error agreement, h5sf_agree, is internal.h's
 * inline forwarder to ioc/ctx.c).
 *
 * h5sf never initializes MPI: a serial program that did not (h5dump
 * --vfd-name=h5sf, a child process of an MPI rank) opens without it
 * (solo.c).  Where the program did, a delete-attribute callback on
 * MPI_COMM_SELF runs at the start of MPI_Finalize, before communicators die,
 * so open files and IOC threads can be shut down without touching MPI later.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

static bool finalizing;
static int  self_keyval = MPI_KEYVAL_INVALID;
static void (*finalize_fns[4])(void);
static int nfinalize_fns;

bool h5sf_mpi_finalizing(void)
{
    int fin = 0;
    if (finalizing)
        return true;
    MPI_Finalized(&fin);
    return fin != 0;
}

bool h5sf_mpi_usable(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin && !finalizing;
}

/* The communicator a fapl names for h5sf's collective steps: h5sf's driver
 * info first, then the fapl's MPI parameters (H5Pset_mpi_params,
 * H5Pset_fapl_mpio redirected).  A fapl that names none asks for serial
 * access, as it does of every HDF5 driver (H5P_DEFAULT under HDF5_DRIVER,
 * a serial library such as netCDF's): MPI_COMM_SELF, so one rank alone
 * can open a file and every rank its own; *named says which it was.
 * *comm and *info are new duplicates (or MPI_INFO_NULL) the caller frees.
 * Collective on that communicator: a duplicate that fails on one rank
 * fails every rank. */
int h5sf_fapl_comm(hid_t fapl_id, const H5FD_h5sf_config_t *cfg, MPI_Comm *comm, MPI_Info *info, bool *named,
                   h5sf_errbuf_t *e)
{
    MPI_Comm c   = MPI_COMM_NULL;
    MPI_Info i   = MPI_INFO_NULL;
    bool     own = false;

    *comm = MPI_COMM_NULL;
    *info = MPI_INFO_NULL;
    if (cfg->comm != MPI_COMM_NULL) {
        c = cfg->comm;
        i = cfg->info;
    }
    else if (fapl_id != H5P_DEFAULT && fapl_id != H5I_INVALID_HID) {
        herr_t r = -1;
        H5E_BEGIN_TRY { r = H5Pget_mpi_params(fapl_id, &c, &i); }
        H5E_END_TRY
        own = r >= 0;
        if (!own)
            c = MPI_COMM_NULL, i = MPI_INFO_NULL;
    }
    if (named)
        *named = c != MPI_COMM_NULL;
    if (c == MPI_COMM_NULL)
        c = MPI_COMM_SELF;
    char why[MPI_MAX_ERROR_STRING];
    int  rc = MPI_SUCCESS;
    /* H5Pget_mpi_params gave duplicates (never a predefined handle): they
     * become ours, as a second MPI_Comm_dup would (one collective fewer per
     * open, a round trip across nodes). */
    if (own && c != MPI_COMM_WORLD && c != MPI_COMM_SELF) {
        *comm = c;
        *info = i;
        own   = false;
    }
    else if ((rc = h5sf_mpisite_comm_dup(c, comm)) != MPI_SUCCESS)
        h5sf_fail(e, 0, "cannot duplicate the file access property list's communicator: %s",
                  h5sf_mpisite_errstr(rc, why));
    else if (i != MPI_INFO_NULL && (rc = h5sf_mpisite_info_dup(i, info)) != MPI_SUCCESS)
        h5sf_fail(e, 0, "cannot duplicate the file access property list's MPI info: %s", h5sf_mpisite_errstr(rc, why));
    /* Agreed on c itself: a rank whose duplicate failed has nothing else
     * to agree on, and must not leave the others in the first collective
     * on theirs. */
    int agreed = h5sf_ioc_agree(c, rc != MPI_SUCCESS, e);
    if (own) {
        if (c != MPI_COMM_NULL && c != MPI_COMM_WORLD && c != MPI_COMM_SELF)
            MPI_Comm_free(&c);
        if (i != MPI_INFO_NULL)
            MPI_Info_free(&i);
    }
    if (agreed < 0) {
        if (*comm != MPI_COMM_NULL)
            MPI_Comm_free(comm);
        if (*info != MPI_INFO_NULL)
            MPI_Info_free(info);
        return -1;
    }
    return 0;
}

static int on_self_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)attr;
    (void)extra;
    /* MPI still works while the hooks run (they close files collectively);
     * only afterwards is it off limits. */
    for (int i = nfinalize_fns - 1; i >= 0; i--)
        finalize_fns[i]();
    finalizing = true;
    return MPI_SUCCESS;
}

/* The finalize hooks, run now instead of from MPI_Finalize's own
 * callbacks: the preload shim calls this from its MPI_Finalize, before
 * PMPI_Finalize, while MPI still serializes threads.  MPICH 4.0.2 turns its
 * locking off before it runs MPI_COMM_SELF's callbacks, so an IOC thread
 * inside MPI at that moment kept its global mutex locked and MPI_Finalize
 * aborted (docs/reliability.md).  Deleting the attribute runs the hooks
 * once; the callback has nothing left to run.  Exported for the shim,
 * which finds it with dlsym. */
H5SF_API void h5sf_mpi_finalize_now(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin || finalizing || self_keyval == MPI_KEYVAL_INVALID)
        return;
    MPI_Comm_delete_attr(MPI_COMM_SELF, self_keyval);
}

void h5sf_mpi_on_finalize(void (*fn)(void))
{
    for (int i = 0; i < nfinalize_fns; i++)
        if (finalize_fns[i] == fn)
            return;
    if (nfinalize_fns < 4)
        finalize_fns[nfinalize_fns++] = fn;
}

int h5sf_mpi_ensure(int *provided, h5sf_errbuf_t *e)
{
    int init = 0, fin = 0;
    MPI_Finalized(&fin);
    if (fin)
        return h5sf_fail(e, 0,
                         "MPI has already been finalized; h5sf cannot open files on a communicator after "
                         "MPI_Finalize");
    MPI_Initialized(&init);
    if (!init) /* h5sf_solo_open took every open without a communicator */
        return h5sf_fail(e, 0, "MPI is not initialized, but the file access property list names a communicator");
    MPI_Query_thread(provided);
    if (self_keyval == MPI_KEYVAL_INVALID) {
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_self_delete, &self_keyval, NULL) != MPI_SUCCESS ||
            MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL) != MPI_SUCCESS)
            return h5sf_fail(e, 0, "cannot register the MPI_Finalize hook on MPI_COMM_SELF");
    }
    return 0;
}
