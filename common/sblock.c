/*
 * sblock.c -- driver-info block and superblock-extension parsing for the
 * tools and for the driver's open (drvlen.c), on top of superblock.c (see
 * sblock.h).  Reads untrusted
 * bytes: every field is bounds-checked against what was actually read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "bytes.h"
#include "sblock.h"

#define DRVINFO_HDR   16     /* H5F_DRVINFOBLOCK_HDR_SIZE */
#define MSG_DRVINFO   0x0014 /* H5O_DRVINFO_ID */
#define MSG_CONT      0x0010 /* H5O_CONT_ID */
#define MSG_DONTSHARE 0x04   /* H5O_MSG_FLAG_DONTSHARE, as HDF5 marks its own driver-info message */
#define MAX_CHUNKS    64
#define MAX_CHUNK_LEN ((size_t)1 << 20)

/* ---- reading ------------------------------------------------------------ */

static int read_exact(h5sf_read_at_fn rd, void *ctx, uint64_t off, void *buf, size_t len, const char *what,
                      h5sf_errbuf_t *e)
{
    ssize_t n = rd(ctx, off, buf, len);
    if (n < 0)
        return h5sf_fail(e, errno, "cannot read %s at offset %" PRIu64 ": %s", what, off, strerror(errno));
    if ((size_t)n < len)
        return h5sf_fail(e, EIO, "%s at offset %" PRIu64 " is cut off by the end of the file", what, off);
    return 0;
}

/* ---- driver info -------------------------------------------------------- */

static int set_drvinfo(sb_info_t *sb, const char *name, uint64_t off, size_t len, h5sf_errbuf_t *e)
{
    if (len == 0 || len > SB_DRVINFO_MAX)
        return h5sf_fail(e, EINVAL, "driver info of %zu bytes (allowed: 1..%d)", len, SB_DRVINFO_MAX);
    memcpy(sb->drv_name, name, 8);
    sb->drv_name[8] = '\0';
    sb->drvinfo_off = off;
    sb->drv_len     = len;
    sb->has_drvinfo = true;
    return 0;
}

/* Version 0/1: the driver info block at base + driver_addr. */
static int read_drvinfo_block(h5sf_read_at_fn rd, void *ctx, sb_info_t *sb, h5sf_errbuf_t *e)
{
    unsigned char h[DRVINFO_HDR];
    uint64_t      at = sb->hdr.base_addr + sb->hdr.driver_addr;
    if (read_exact(rd, ctx, at, h, sizeof h, "the driver info block", e) < 0)
        return -1;
    if (h[0] != 0)
        return h5sf_fail(e, EINVAL, "driver info block at %" PRIu64 ": unknown version %u", at, h[0]);
    if (set_drvinfo(sb, (const char *)h + 8, at + DRVINFO_HDR, (size_t)h5sf_get_uint(h + 4, 4), e) < 0)
        return -1;
    return read_exact(rd, ctx, sb->drvinfo_off, sb->drv_buf, sb->drv_len, "the driver info", e);
}

/* Walk the messages of one object-header chunk [p, p+n); queue
 * continuations; stop at a driver-info message. */
static int scan_chunk(const sb_info_t *sb, int ohver, unsigned ohflags, const unsigned char *p, size_t n,
                      uint64_t chunk_off, uint64_t *queue, uint64_t *qlen, int *nq, uint64_t *found, size_t *found_len,
                      h5sf_errbuf_t *e)
{
    const int    O = sb->hdr.sizeof_addr, L = sb->hdr.sizeof_size;
    const size_t mh  = ohver == 1 ? 8 : 4 + ((ohflags & 0x04) ? 2 : 0);
    size_t       pos = 0;
    while (pos + mh <= n) {
        unsigned type = ohver == 1 ? (unsigned)h5sf_get_uint(p + pos, 2) : p[pos];
        size_t   size = (size_t)h5sf_get_uint(p + pos + (ohver == 1 ? 2 : 1), 2);
        size_t   body = pos + mh;
        if (body + size > n)
            return h5sf_fail(e, EINVAL, "superblock extension: message of %zu bytes runs past its chunk", size);
        if (type == MSG_CONT) {
            if (size < (size_t)(O + L))
                return h5sf_fail(e, EINVAL, "superblock extension: short continuation message");
            if (*nq >= MAX_CHUNKS)
                return h5sf_fail(e, EINVAL, "superblock extension: more than %d chunks", MAX_CHUNKS);
            queue[*nq] = h5sf_sb_addr(p + body, O);
            qlen[*nq]  = h5sf_get_uint(p + body + O, L);
            (*nq)++;
        }
        else if (type == MSG_DRVINFO) {
            *found     = chunk_off + body;
            *found_len = size;
            return 0;
        }
        pos = body + size;
    }
    return 0;
}

/* The superblock extension's object header: its version and flags, and
 * where its first chunk lies (queue[0], qlen[0]; addresses relative to the
 * base, like continuation addresses). */
static int ext_prefix(h5sf_read_at_fn rd, void *ctx, const sb_info_t *sb, int *ohver, unsigned *ohflags,
                      uint64_t *queue, uint64_t *qlen, h5sf_errbuf_t *e)
{
    unsigned char h[64];
    uint64_t      at  = sb->hdr.base_addr + sb->hdr.ext_addr;
    ssize_t       got = rd(ctx, at, h, sizeof h); /* the prefix may sit close to the end of the file */
    if (got < 0)
        return h5sf_fail(e, errno, "cannot read the superblock extension at %" PRIu64 ": %s", at, strerror(errno));
    if (got < 16)
        return h5sf_fail(e, EIO, "superblock extension at %" PRIu64 " is cut off by the end of the file", at);
    if (memcmp(h, "OHDR", 4) == 0) {
        if (h[4] != 2)
            return h5sf_fail(e, EINVAL, "superblock extension: object header version %u", h[4]);
        *ohver     = 2;
        *ohflags   = h[5];
        size_t pos = 6 + ((*ohflags & 0x20) ? 16 : 0) + ((*ohflags & 0x10) ? 4 : 0);
        int    szb = 1 << (*ohflags & 3);
        if ((size_t)got < pos + (size_t)szb)
            return h5sf_fail(e, EIO, "superblock extension at %" PRIu64 " is cut off by the end of the file", at);
        queue[0] = sb->hdr.ext_addr + pos + (uint64_t)szb;
        qlen[0]  = h5sf_get_uint(h + pos, szb);
        return 0;
    }
    if (h[0] != 1)
        return h5sf_fail(e, EINVAL, "superblock extension at %" PRIu64 " is not an object header", at);
    *ohver   = 1;
    *ohflags = 0;
    queue[0] = sb->hdr.ext_addr + 16; /* v1 messages start 8-byte aligned after the 12-byte prefix */
    qlen[0]  = h5sf_get_uint(h + 8, 4);
    return 0;
}

/* Scan the header's chunks, following continuations (queue), until the
 * driver info message is found (*found: its address, else
 * H5SF_SB_UNDEF). */
static int walk_chunks(h5sf_read_at_fn rd, void *ctx, sb_info_t *sb, int ohver, unsigned ohflags, uint64_t *queue,
                       uint64_t *qlen, uint64_t *found, size_t *found_len, h5sf_errbuf_t *e)
{
    unsigned char *buf = NULL;
    int            nq = 1, ret = -1;
    for (int i = 0; i < nq && *found == H5SF_SB_UNDEF; i++) {
        uint64_t off = sb->hdr.base_addr + queue[i];
        size_t   len = (size_t)qlen[i], skip = 0;
        if (queue[i] == H5SF_SB_UNDEF || len == 0 || len > MAX_CHUNK_LEN) {
            h5sf_fail(e, EINVAL, "superblock extension: bad chunk (address %" PRIu64 ", %zu bytes)", queue[i], len);
            goto done;
        }
        h5sf_free(buf);
        if (!(buf = h5sf_malloc(len))) {
            h5sf_fail(e, ENOMEM, "out of memory");
            goto done;
        }
        if (read_exact(rd, ctx, off, buf, len, "a superblock extension chunk", e) < 0)
            goto done;
        if (ohver == 2 && i > 0) { /* continuation chunk: "OCHK" ... checksum */
            if (len < 8 || memcmp(buf, "OCHK", 4) != 0) {
                h5sf_fail(e, EINVAL, "superblock extension: continuation chunk without OCHK signature");
                goto done;
            }
            skip = 4;
            len -= 4;
        }
        if (scan_chunk(sb, ohver, ohflags, buf + skip, len - skip, off + skip, queue, qlen, &nq, found, found_len, e) <
            0)
            goto done;
    }
    ret = 0;
done:
    h5sf_free(buf);
    return ret;
}

/* The driver info message at `found` (`found_len` bytes): its name and
 * info into sb. */
static int read_found_msg(h5sf_read_at_fn rd, void *ctx, sb_info_t *sb, uint64_t found, size_t found_len,
                          h5sf_errbuf_t *e)
{
    unsigned char m[11];
    if (found_len < sizeof m + 1)
        return h5sf_fail(e, EINVAL, "superblock extension: driver info message of %zu bytes is too short", found_len);
    if (read_exact(rd, ctx, found, m, sizeof m, "the driver info message", e) < 0)
        return -1;
    if (m[0] != 0)
        return h5sf_fail(e, EINVAL, "driver info message: unknown version %u", m[0]);
    size_t n = (size_t)h5sf_get_uint(m + 9, 2);
    if (n + sizeof m > found_len)
        return h5sf_fail(e, EINVAL, "driver info message: %zu bytes of info do not fit its %zu-byte message", n,
                         found_len);
    if (set_drvinfo(sb, (const char *)m + 1, found + sizeof m, n, e) < 0 ||
        read_exact(rd, ctx, sb->drvinfo_off, sb->drv_buf, n, "the driver info", e) < 0)
        return -1;
    return 0;
}

/* Version 2/3: the driver-info message in the superblock extension: the
 * header's prefix, its chunks, the message (none: no driver info). */
static int read_drvinfo_msg(h5sf_read_at_fn rd, void *ctx, sb_info_t *sb, h5sf_errbuf_t *e)
{
    uint64_t queue[MAX_CHUNKS], qlen[MAX_CHUNKS], found = H5SF_SB_UNDEF;
    size_t   found_len = 0;
    int      ohver     = 0;
    unsigned ohflags   = 0;
    if (ext_prefix(rd, ctx, sb, &ohver, &ohflags, queue, qlen, e) < 0 ||
        walk_chunks(rd, ctx, sb, ohver, ohflags, queue, qlen, &found, &found_len, e) < 0)
        return -1;
    return found == H5SF_SB_UNDEF ? 0 : read_found_msg(rd, ctx, sb, found, found_len, e);
}

/* ---- the superblock and its driver info --------------------------------- */

int sb_read(h5sf_read_at_fn rd, void *ctx, uint64_t file_size, sb_info_t *sb, h5sf_errbuf_t *e)
{
    memset(sb, 0, sizeof *sb);
    if (h5sf_superblock_read(rd, ctx, file_size, &sb->hdr, sb->raw, e) < 0)
        return -1;
    if (sb->hdr.version <= 1 && sb->hdr.driver_addr != H5SF_SB_UNDEF)
        return read_drvinfo_block(rd, ctx, sb, e);
    if (sb->hdr.version >= 2 && sb->hdr.ext_addr != H5SF_SB_UNDEF)
        return read_drvinfo_msg(rd, ctx, sb, e);
    return 0;
}

/* ---- adding driver info (h5sf-split) ------------------------------------ */

int sb_add_drvinfo(const sb_info_t *sb, const char name[9], const unsigned char *info, size_t info_len,
                   unsigned char *sb_out, size_t *sb_len, unsigned char *tail, size_t *tail_len, h5sf_errbuf_t *e)
{
    const int O = sb->hdr.sizeof_addr;
    if (info_len == 0 || info_len > SB_DRVINFO_MAX)
        return h5sf_fail(e, EINVAL, "driver info of %zu bytes does not fit a superblock", info_len);
    if (sb->has_drvinfo)
        return h5sf_fail(e, EEXIST, "the superblock already has driver info (\"%s\")", sb->drv_name);
    memcpy(sb_out, sb->raw, sb->hdr.len);
    *sb_len = sb->hdr.len;
    if (sb->hdr.eof < sb->hdr.base_addr)
        return h5sf_fail(e, EINVAL, "superblock: end of file %" PRIu64 " lies before the base address %" PRIu64,
                         sb->hdr.eof, sb->hdr.base_addr);
    const uint64_t at = sb->hdr.eof - sb->hdr.base_addr; /* new structure goes at the old end of file (relative) */

    if (sb->hdr.version <= 1) {
        size_t fields = sb->hdr.version == 0 ? 24 : 28;
        /* Block: version 0, 3 reserved bytes, info size, driver name, info. */
        memset(tail, 0, DRVINFO_HDR);
        h5sf_put_uint(tail + 4, info_len, 4);
        memcpy(tail + 8, name, 8);
        memcpy(tail + DRVINFO_HDR, info, info_len);
        *tail_len = DRVINFO_HDR + info_len;
        h5sf_put_uint(sb_out + fields, sb->hdr.base_addr, O);
        h5sf_put_uint(sb_out + fields + 2 * O, sb->hdr.eof + *tail_len, O);
        h5sf_put_uint(sb_out + fields + 3 * O, at, O);
        return 0;
    }
    if (sb->hdr.ext_addr != H5SF_SB_UNDEF)
        return h5sf_fail(e, ENOTSUP,
                         "the version %d superblock already has an extension (file-space or shared-message "
                         "settings); h5sf-split cannot add driver info to it",
                         sb->hdr.version);
    /* A version 2 object header with one message: driver info, marked
     * "don't share" as HDF5 marks its own (H5F__super_init). */
    const size_t   body  = 1 + 8 + 2 + info_len;
    const size_t   chunk = 4 + body;
    const int      szb   = chunk <= 0xff ? 1 : 2;
    unsigned char *p     = tail;
    memcpy(p, "OHDR", 4);
    p[4] = 2;                      /* version */
    p[5] = szb == 1 ? 0x00 : 0x01; /* chunk-0 size field width; no times, no attribute settings */
    p += 6;
    h5sf_put_uint(p, chunk, szb);
    p += szb;
    p[0] = (unsigned char)MSG_DRVINFO;
    h5sf_put_uint(p + 1, body, 2);
    p[3] = MSG_DONTSHARE;
    p += 4;
    p[0] = 0; /* message version */
    memcpy(p + 1, name, 8);
    h5sf_put_uint(p + 9, info_len, 2);
    memcpy(p + 11, info, info_len);
    p += body;
    h5sf_put_uint(p, h5sf_metadata_checksum(tail, (size_t)(p - tail)), 4);
    p += 4;
    *tail_len = (size_t)(p - tail);
    h5sf_put_uint(sb_out + 12, sb->hdr.base_addr, O);
    h5sf_put_uint(sb_out + 12 + O, at, O);
    h5sf_put_uint(sb_out + 12 + 2 * O, sb->hdr.eof + *tail_len, O);
    h5sf_put_uint(sb_out + sb->hdr.len - 4, h5sf_metadata_checksum(sb_out, sb->hdr.len - 4), 4);
    return 0;
}
