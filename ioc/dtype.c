/*
 * dtype.c -- MPI datatypes over the caller's pieces, so payloads move
 * straight from and into HDF5's buffers without a packing copy.
 *
 * MPI counts and block lengths are ints; a piece longer than 1 GiB is cut
 * into 1 GiB blocks, so any total (above 2 GiB too) is one message of count 1.
 */
#include <limits.h>
#include <stdlib.h>
#include "internal.h"

#define BLOCK_MAX ((uint64_t)1 << 30)

/* Runs of pieces that follow each other in memory -- a contiguous buffer
 * written or read strided in the file -- are one block each: fewer blocks
 * for MPI to walk, and often a plain contiguous message.  Counts the runs
 * and blocks; with bl, also stores the blocks in bl/disp. */
static size_t mem_blocks(size_t n, void *const *bufs, const uint64_t *lens, int *bl, MPI_Aint *disp, size_t *nrun)
{
    size_t   nblk = 0;
    char    *a    = NULL;
    uint64_t len  = 0;
    *nrun         = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !lens[i])
            continue;
        if (i < n && *nrun && (char *)bufs[i] == a + len) {
            len += lens[i];
            continue;
        }
        /* The run at a ends: cut it into blocks of at most BLOCK_MAX. */
        for (uint64_t off = 0; *nrun && off < len; off += BLOCK_MAX, nblk++)
            if (bl) {
                MPI_Aint at;
                MPI_Get_address(a + off, &at);
                bl[nblk]   = (int)(len - off < BLOCK_MAX ? len - off : BLOCK_MAX);
                disp[nblk] = at;
            }
        if (i < n) {
            a   = bufs[i];
            len = lens[i];
            (*nrun)++;
        }
    }
    return nblk;
}

int ioc_dtype_make(size_t n, void *const *bufs, const uint64_t *lens, void **base, MPI_Datatype *dt, int *count,
                   h5sf_errbuf_t *e)
{
    int      *bl   = NULL;
    MPI_Aint *disp = NULL;
    int       ret  = -1;
    size_t    nrun;

    *dt         = MPI_BYTE;
    size_t nblk = mem_blocks(n, bufs, lens, NULL, NULL, &nrun);
    if (nblk == 0) {
        *base  = NULL;
        *count = 0;
        return 0;
    }
    /* The common case: one run that fits an int count. */
    if (nrun == 1) {
        size_t   i     = 0;
        uint64_t total = 0;
        while (!lens[i])
            i++;
        for (size_t j = i; j < n; j++)
            total += lens[j];
        if (total <= (uint64_t)INT_MAX) {
            *base  = bufs[i];
            *count = (int)total;
            return 0;
        }
    }
    if (nblk > (size_t)INT_MAX)
        return h5sf_fail(e, EOVERFLOW, "too many pieces (%zu) for one MPI message", nblk);
    if (!(bl = h5sf_malloc(nblk * sizeof *bl)) || !(disp = h5sf_malloc(nblk * sizeof *disp))) {
        h5sf_fail(e, ENOMEM, "out of memory building an MPI datatype over %zu pieces", n);
        goto done;
    }
    mem_blocks(n, bufs, lens, bl, disp, &nrun);
    /* Displacements from the first piece, not absolute with MPI_BOTTOM:
     * MPICH 4.0's MPI_Pack refuses a null inbuf, and MPI_BOTTOM is null
     * there (unit_payload). */
    size_t first = 0;
    while (!lens[first])
        first++;
    MPI_Aint origin;
    MPI_Get_address(bufs[first], &origin);
    for (size_t k = 0; k < nblk; k++)
        disp[k] = MPI_Aint_diff(disp[k], origin);
    /* Two local calls (create, commit) under one turn of the gate. */
    int rc = IOC_MPI(h5sf_mpisite_type_hindexed((int)nblk, bl, disp, dt));
    if (rc != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING];
        *dt = MPI_BYTE;
        h5sf_fail(e, 0, "MPI_Type_create_hindexed failed for %zu pieces: %s", n, h5sf_mpisite_errstr(rc, why));
        goto done;
    }
    *base  = bufs[first];
    *count = 1;
    ret    = 0;
done:
    h5sf_free(bl);
    h5sf_free(disp);
    return ret;
}

void ioc_dtype_free(MPI_Datatype *dt)
{
    if (*dt != MPI_BYTE && *dt != MPI_DATATYPE_NULL)
        IOC_MPI(MPI_Type_free(dt));
    *dt = MPI_BYTE;
}
