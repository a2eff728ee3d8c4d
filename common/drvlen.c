/*
 * drvlen.c -- the length of a subfiled file's driver info as the file
 * declares it, read from the subfiles as HDF5 will read it.
 *
 * HDF5 hands sb_decode the driver info without its length, in a buffer of
 * exactly the declared length (a version 0/1 block's header, or the
 * version 2/3 message's size field).  Rank 0 reads that length here at
 * open, so the decode can be bounded by it (vfd/h5sf.c h5sf_sb_decode).
 * Reads subfiles only through h5sf_sysio_open; writes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "alloc.h"
#include "drvlen.h"
#include "sblock.h"
#include "stripe.h"
#include "sysio.h"

typedef struct reader {
    const h5sf_layout_t *l;
    int                  idx, fd; /* the one subfile open now */
    h5sf_errbuf_t       *e;
    int                  sys_err; /* a system call failed (not the format) */
} reader_t;

/* Make subfile idx the open one; -1 with errno set. */
static int use_subfile(reader_t *r, int idx)
{
    char path[2 * H5SF_LAYOUT_PATH_MAX];
    if (r->idx == idx)
        return 0;
    if (r->fd >= 0)
        h5sf_sysio_close(r->fd);
    r->idx = -1;
    if (h5sf_subfile_path(r->l, idx, path, sizeof path, r->e) < 0) {
        errno        = ENAMETOOLONG;
        return r->fd = -1;
    }
    if ((r->fd = h5sf_sysio_open(path, O_RDONLY, -1)) < 0) {
        int err = errno;
        h5sf_fail(r->e, err, "cannot open subfile %.3000s: %s", path, h5sf_sysio_strerror(err));
        errno = r->sys_err = err;
        return -1;
    }
    r->idx = idx;
    return 0;
}

/* h5sf_read_at_fn over the logical file: a stripe at a time. */
static ssize_t read_logical(void *ctx, uint64_t off, void *buf, size_t len)
{
    reader_t      *r    = ctx;
    const uint64_t S    = (uint64_t)r->l->stripe_size;
    const int      N    = r->l->stripe_count;
    size_t         done = 0;
    while (done < len) {
        uint64_t at   = off + done;
        uint64_t room = S - at % S;
        size_t   want = len - done < room ? len - done : (size_t)room;
        if (use_subfile(r, sf_subfile_of(at, S, N)) < 0)
            return -1;
        ssize_t n = h5sf_sysio_pread(r->fd, (char *)buf + done, want, sf_subfile_off(at, S, N));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            r->sys_err = errno;
            return -1;
        }
        done += (size_t)n;
        if ((size_t)n < want) /* the end of this subfile: the end of the file here */
            break;
    }
    return (ssize_t)done;
}

int h5sf_drvinfo_len_read(const h5sf_layout_t *l, size_t *len, h5sf_errbuf_t *e)
{
    reader_t      r = {l, -1, -1, e, 0};
    sb_info_t    *sb;
    uint64_t      size0 = 0;
    int           ret   = -1;
    h5sf_errbuf_t fmt   = {0};

    *len = 0;
    if (l->plain || l->stripe_size <= 0 || l->stripe_count < 1)
        return 0;
    if (!(sb = h5sf_calloc(1, sizeof *sb)))
        return h5sf_fail(e, ENOMEM, "out of memory");
    if (use_subfile(&r, 0) < 0)
        goto done;
    if (h5sf_sysio_size(r.fd, &size0) < 0) {
        h5sf_fail(e, errno, "cannot stat subfile 1 of %s: %s", l->base, strerror(errno));
        goto done;
    }
    /* The signature search stops at the first match; no logical file is
     * longer than N times its first subfile plus a stripe. */
    uint64_t bound =
        size0 > UINT64_MAX / 2 / (uint64_t)l->stripe_count ? UINT64_MAX / 2 : size0 * (uint64_t)l->stripe_count;
    r.e = &fmt;
    if (sb_read(read_logical, &r, bound + (uint64_t)l->stripe_size, sb, &fmt) == 0)
        *len = sb->has_drvinfo ? sb->drv_len : 0;
    else if (r.sys_err) { /* the bytes could not be read: that is the failure */
        h5sf_fail(e, r.sys_err, "%s", fmt.msg);
        goto done;
    }
    ret = 0; /* bytes that are no superblock: *len stays 0 */
done:
    if (r.fd >= 0)
        h5sf_sysio_close(r.fd);
    h5sf_free(sb);
    return ret;
}
