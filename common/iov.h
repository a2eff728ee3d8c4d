/*
 * iov.h -- what a short pwritev/preadv leaves to do (the rest of the
 * iovec; zeros past EOF): shared by the IOC's
 * workers (ioc/run.c) and the direct channel's pool (vfd/pool.c), which
 * both loop over short transfers.  No MPI, no HDF5.
 */
#ifndef H5SF_IOV_H
#define H5SF_IOV_H

#include <stddef.h>
#include <string.h>
#include <sys/uio.h>

/* Drop the first k bytes from *iov[0..*n): whole buffers, then the front
 * of the one cut in the middle. */
static inline void h5sf_iov_consume(struct iovec **iov, int *n, size_t k)
{
    while (*n > 0 && k >= (*iov)[0].iov_len) {
        k -= (*iov)[0].iov_len;
        (*iov)++;
        (*n)--;
    }
    if (*n > 0) {
        (*iov)[0].iov_base = (char *)(*iov)[0].iov_base + k;
        (*iov)[0].iov_len -= k;
    }
}

/* Zero iov[0..n) from byte `from` on: what a read past EOF did not fill
 * (HDF5 expects zeros there). */
static inline void h5sf_iov_zero_from(const struct iovec *iov, int n, size_t from)
{
    for (int q = 0; q < n; q++) {
        if (from >= iov[q].iov_len) {
            from -= iov[q].iov_len;
            continue;
        }
        memset((char *)iov[q].iov_base + from, 0, iov[q].iov_len - from);
        from = 0;
    }
}

#endif
