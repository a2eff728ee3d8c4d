/*
 * solo.c -- files opened without MPI, and the collectives that allow them.
 *
 * A serial program (h5dump, netCDF, h5py, a child process of an MPI rank)
 * opens through h5sf with a fapl that names no communicator.  If the
 * program has not initialized MPI, h5sf does not either: MPI_Init in a
 * child of an MPI rank fails, or hangs its parent in MPI_Finalize.  Such a
 * file has no communicator (MPI_COMM_NULL), is rank 0 of 1, and takes the
 * direct channel; every collective step below is then the local case, so
 * the code that runs collectives needs no other test for it.
 */
#include <string.h>
#include "internal.h"

/* The one decision: MPI is not usable (never initialized, or finalized) and
 * h5sf's driver info names no communicator.  The fapl's MPI parameters are
 * not read: with MPI never initialized it cannot hold any (H5Pset_mpi_params
 * duplicates the communicator), and after MPI_Finalize nothing may touch
 * one.  A communicator in the driver info then fails the open
 * (h5sf_mpi_ensure), as before. */
bool h5sf_solo_open(hid_t fapl_id)
{
    const H5FD_h5sf_config_t *di = NULL;
    if (h5sf_mpi_usable())
        return false;
    if (fapl_id != H5P_DEFAULT && fapl_id != H5I_INVALID_HID) {
        H5E_BEGIN_TRY { di = H5Pget_driver_info(fapl_id); }
        H5E_END_TRY
    }
    return !di || di->comm == MPI_COMM_NULL;
}

void h5sf_coll_rank_size(MPI_Comm comm, int *rank, int *size)
{
    if (comm == MPI_COMM_NULL) {
        *rank = 0, *size = 1;
        return;
    }
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
}

int h5sf_coll_bcast(void *buf, int len, int root, MPI_Comm comm)
{
    return comm == MPI_COMM_NULL ? MPI_SUCCESS : MPI_Bcast(buf, len, MPI_BYTE, root, comm);
}

/* Alone, a reduction is a copy.  Only the types h5sf reduces: the handles
 * compare without MPI (MPI_Type_size needs it initialized). */
static size_t elem_size(MPI_Datatype t) { return t == MPI_INT ? sizeof(int) : sizeof(uint64_t); }

int h5sf_coll_allreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    if (comm != MPI_COMM_NULL)
        return MPI_Allreduce(in, out, n, t, op, comm);
    memmove(out, in, (size_t)n * elem_size(t));
    return MPI_SUCCESS;
}

int h5sf_coll_reduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    if (comm != MPI_COMM_NULL)
        return MPI_Reduce(in, out, n, t, op, 0, comm);
    memmove(out, in, (size_t)n * elem_size(t));
    return MPI_SUCCESS;
}
