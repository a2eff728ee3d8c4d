/*
 * mpi.c -- MPI life cycle and error agreement.
 *
 * A serial program (h5dump --vfd-name=h5sf) never initializes MPI; h5sf does
 * it then and finalizes at exit.  Either way, a delete-attribute callback on
 * MPI_COMM_SELF runs at the start of MPI_Finalize, before communicators die,
 * so open files and IOC threads can be shut down without touching MPI later.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static bool self_initialized;
static bool finalizing;
static int  self_keyval = MPI_KEYVAL_INVALID;
static void (*finalize_fns[4])(void);
static int  nfinalize_fns;

bool h5sf_mpi_finalizing(void)
{
    int fin = 0;
    if (finalizing)
        return true;
    MPI_Finalized(&fin);
    return fin != 0;
}

static int on_self_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)attr; (void)extra;
    /* MPI still works while the hooks run (they close files collectively);
     * only afterwards is it off limits. */
    for (int i = nfinalize_fns - 1; i >= 0; i--)
        finalize_fns[i]();
    finalizing = true;
    return MPI_SUCCESS;
}

void h5sf_mpi_on_finalize(void (*fn)(void))
{
    for (int i = 0; i < nfinalize_fns; i++)
        if (finalize_fns[i] == fn)
            return;
    if (nfinalize_fns < 4)
        finalize_fns[nfinalize_fns++] = fn;
}

static void finalize_at_exit(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin)
        MPI_Finalize();
}

int h5sf_mpi_ensure(int *provided, h5sf_errbuf_t *e)
{
    int init = 0, fin = 0;
    MPI_Finalized(&fin);
    if (fin)
        return h5sf_fail(e, 0, "MPI has already been finalized; h5sf cannot open files after MPI_Finalize");
    MPI_Initialized(&init);
    if (!init) {
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, provided) != MPI_SUCCESS)
            return h5sf_fail(e, 0, "MPI_Init_thread failed (h5sf initializes MPI for serial programs)");
        self_initialized = true;
        atexit(finalize_at_exit);
    }
    else
        MPI_Query_thread(provided);
    if (self_keyval == MPI_KEYVAL_INVALID) {
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_self_delete, &self_keyval, NULL) != MPI_SUCCESS ||
            MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL) != MPI_SUCCESS)
            return h5sf_fail(e, 0, "cannot register the MPI_Finalize hook on MPI_COMM_SELF");
    }
    return 0;
}

int h5sf_agree(MPI_Comm comm, int local_failed, h5sf_errbuf_t *e)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = local_failed ? rank : size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return h5sf_fail(e, 0, "MPI_Allreduce failed while agreeing on errors");
    if (first == size)
        return 0;
    /* Everyone reports the lowest failing rank's reason; the failing rank
     * keeps its own text. */
    h5sf_errbuf_t tmp;
    memset(&tmp, 0, sizeof tmp);
    if (rank == first && e)
        tmp = *e;
    MPI_Bcast(&tmp, (int)sizeof tmp, MPI_BYTE, first, comm);
    if (e && rank != first) {
        char msg[sizeof tmp.msg];
        snprintf(msg, sizeof msg, "rank %d: %.490s", first, tmp.msg);
        memcpy(e->msg, msg, sizeof msg);
        e->err_no = tmp.err_no;
    }
    return -1;
}
