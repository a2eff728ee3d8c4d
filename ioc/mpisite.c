/*
 * mpisite.c -- the MPI calls h5sf makes that can fail on one rank alone,
 * each one a fault site of the sweep (common/alloc.h, H5SF_SITE_MPI).
 *
 * An MPI library may run out of memory in a call on one rank while the
 * others' calls succeed; h5sf must then fail on every rank, with the cause.
 * Such a failure is stood in for here: a call that makes something
 * collectively (a communicator) is made, and on a failing site what it
 * made is freed again and MPI_ERR_NO_MEM returned, as when the collective
 * part succeeded and this rank's local part did not; a local call
 * (an info object, a datatype, a request) is not made at all.  The error
 * then reads as MPI_Error_string(MPI_ERR_NO_MEM) says (h5sf_mpisite_errstr).
 *
 * Owns nothing but the wrappers; safe from any thread.
 */
#include <stdio.h>
#include "internal.h"
#include "../common/alloc.h"

/* The site of one call: true when the test fails it. */
static bool site_fails(void) { return h5sf_site(H5SF_SITE_MPI) != 0; }

const char *h5sf_mpisite_errstr(int rc, char *buf)
{
    int len = 0;
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
        snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
    return buf;
}

int h5sf_mpisite_comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    int rc = MPI_Comm_dup(comm, out);
    if (rc == MPI_SUCCESS && site_fails()) {
        MPI_Comm_free(out);
        rc = MPI_ERR_NO_MEM;
    }
    return rc;
}

int h5sf_mpisite_comm_split_type(MPI_Comm comm, int type, int key, MPI_Comm *out)
{
    int rc = MPI_Comm_split_type(comm, type, key, MPI_INFO_NULL, out);
    if (rc == MPI_SUCCESS && site_fails()) {
        MPI_Comm_free(out);
        rc = MPI_ERR_NO_MEM;
    }
    return rc;
}

int h5sf_mpisite_info_dup(MPI_Info info, MPI_Info *out)
{
    *out = MPI_INFO_NULL;
    return site_fails() ? MPI_ERR_NO_MEM : MPI_Info_dup(info, out);
}

int h5sf_mpisite_info_create(MPI_Info *out)
{
    *out = MPI_INFO_NULL;
    return site_fails() ? MPI_ERR_NO_MEM : MPI_Info_create(out);
}

int h5sf_mpisite_ibarrier(MPI_Comm comm, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    return site_fails() ? MPI_ERR_NO_MEM : MPI_Ibarrier(comm, req);
}

int h5sf_mpisite_type_hindexed(int n, const int *lens, const MPI_Aint *disp, MPI_Datatype *out)
{
    *out = MPI_DATATYPE_NULL;
    if (site_fails())
        return MPI_ERR_NO_MEM;
    int rc = MPI_Type_create_hindexed(n, lens, disp, MPI_BYTE, out);
    if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(out)) != MPI_SUCCESS)
        MPI_Type_free(out);
    return rc;
}
