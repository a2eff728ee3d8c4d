/*
 * sblock.c -- superblock, driver-info block and superblock-extension
 * parsing for the tools (see sblock.h).  Reads untrusted bytes: every
 * field is bounds-checked against what was actually read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "bytes.h"
#include "sblock.h"

static const unsigned char SIGNATURE[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

#define DRVINFO_HDR   16     /* H5F_DRVINFOBLOCK_HDR_SIZE */
#define MSG_DRVINFO   0x0014 /* H5O_DRVINFO_ID */
#define MSG_CONT      0x0010 /* H5O_CONT_ID */
#define MSG_DONTSHARE 0x04   /* H5O_MSG_FLAG_DONTSHARE, as HDF5 marks its own driver-info message */
#define MAX_CHUNKS    64
#define MAX_CHUNK_LEN ((size_t)1 << 20)

/* ---- lookup3 (H5_checksum_lookup3 with initval 0) ---------------------- */

#define ROT(x, k) (((x) << (k)) ^ ((x) >> (32 - (k))))
#define MIX(a, b, c)                                                                                                   \
    do {                                                                                                               \
        a -= c;                                                                                                        \
        a ^= ROT(c, 4);                                                                                                \
        c += b;                                                                                                        \
        b -= a;                                                                                                        \
        b ^= ROT(a, 6);                                                                                                \
        a += c;                                                                                                        \
        c -= b;                                                                                                        \
        c ^= ROT(b, 8);                                                                                                \
        b += a;                                                                                                        \
        a -= c;                                                                                                        \
        a ^= ROT(c, 16);                                                                                               \
        c += b;                                                                                                        \
        b -= a;                                                                                                        \
        b ^= ROT(a, 19);                                                                                               \
        a += c;                                                                                                        \
        c -= b;                                                                                                        \
        c ^= ROT(b, 4);                                                                                                \
        b += a;                                                                                                        \
    } while (0)
#define FINAL(a, b, c)                                                                                                 \
    do {                                                                                                               \
        c ^= b;                                                                                                        \
        c -= ROT(b, 14);                                                                                               \
        a ^= c;                                                                                                        \
        a -= ROT(c, 11);                                                                                               \
        b ^= a;                                                                                                        \
        b -= ROT(a, 25);                                                                                               \
        c ^= b;                                                                                                        \
        c -= ROT(b, 16);                                                                                               \
        a ^= c;                                                                                                        \
        a -= ROT(c, 4);                                                                                                \
        b ^= a;                                                                                                        \
        b -= ROT(a, 14);                                                                                               \
        c ^= b;                                                                                                        \
        c -= ROT(b, 24);                                                                                               \
    } while (0)

uint32_t sb_checksum(const void *buf, size_t len)
{
    const unsigned char *k = buf;
    uint32_t             a, b, c;
    a = b = c = 0xdeadbeef + (uint32_t)len;
    while (len > 12) {
        a += h5sf_get_u32(k);
        b += h5sf_get_u32(k + 4);
        c += h5sf_get_u32(k + 8);
        MIX(a, b, c);
        len -= 12;
        k += 12;
    }
    if (len == 0)
        return c; /* lookup3: zero-length tail needs no final mixing */
    unsigned char tail[12] = {0};
    memcpy(tail, k, len);
    a += h5sf_get_u32(tail);
    b += h5sf_get_u32(tail + 4);
    c += h5sf_get_u32(tail + 8);
    FINAL(a, b, c);
    return c;
}

/* ---- fields ------------------------------------------------------------ */

/* An address field; all ones is HDF5's "undefined". */
static uint64_t get_addr(const unsigned char *p, int n)
{
    uint64_t v = h5sf_get_uint(p, n);
    return (n == 8 ? v == UINT64_MAX : v == (((uint64_t)1 << (8 * n)) - 1)) ? SB_UNDEF : v;
}

static int read_exact(sb_read_fn rd, void *ctx, uint64_t off, void *buf, size_t len, const char *what, h5sf_errbuf_t *e)
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
static int read_drvinfo_block(sb_read_fn rd, void *ctx, sb_info_t *sb, h5sf_errbuf_t *e)
{
    unsigned char h[DRVINFO_HDR];
    uint64_t      at = sb->base_addr + sb->driver_addr;
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
    const int    O = sb->sizeof_addr, L = sb->sizeof_size;
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
            queue[*nq] = get_addr(p + body, O);
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

/* Version 2/3: the driver-info message in the superblock extension. */
static int read_drvinfo_msg(sb_read_fn rd, void *ctx, sb_info_t *sb, h5sf_errbuf_t *e)
{
    uint64_t       queue[MAX_CHUNKS], qlen[MAX_CHUNKS];
    int            nq        = 0, ohver;
    unsigned       ohflags   = 0;
    uint64_t       found     = SB_UNDEF;
    size_t         found_len = 0;
    unsigned char  h[64];
    unsigned char *buf = NULL;
    uint64_t       at  = sb->base_addr + sb->ext_addr;
    int            ret = -1;

    ssize_t got = rd(ctx, at, h, sizeof h); /* the prefix may sit close to the end of the file */
    if (got < 0)
        return h5sf_fail(e, errno, "cannot read the superblock extension at %" PRIu64 ": %s", at, strerror(errno));
    if (got < 16)
        return h5sf_fail(e, EIO, "superblock extension at %" PRIu64 " is cut off by the end of the file", at);
    if (memcmp(h, "OHDR", 4) == 0) {
        if (h[4] != 2)
            return h5sf_fail(e, EINVAL, "superblock extension: object header version %u", h[4]);
        ohver      = 2;
        ohflags    = h[5];
        size_t pos = 6 + ((ohflags & 0x20) ? 16 : 0) + ((ohflags & 0x10) ? 4 : 0);
        int    szb = 1 << (ohflags & 3);
        if ((size_t)got < pos + (size_t)szb)
            return h5sf_fail(e, EIO, "superblock extension at %" PRIu64 " is cut off by the end of the file", at);
        queue[0] = sb->ext_addr + pos + (uint64_t)szb; /* relative, like continuation addresses */
        qlen[0]  = h5sf_get_uint(h + pos, szb);
    }
    else if (h[0] == 1) {
        ohver    = 1;
        queue[0] = sb->ext_addr + 16; /* v1 messages start 8-byte aligned after the 12-byte prefix */
        qlen[0]  = h5sf_get_uint(h + 8, 4);
    }
    else
        return h5sf_fail(e, EINVAL, "superblock extension at %" PRIu64 " is not an object header", at);
    nq = 1;

    for (int i = 0; i < nq && found == SB_UNDEF; i++) {
        uint64_t off = sb->base_addr + queue[i];
        size_t   len = (size_t)qlen[i], skip = 0;
        if (queue[i] == SB_UNDEF || len == 0 || len > MAX_CHUNK_LEN) {
            h5sf_fail(e, EINVAL, "superblock extension: bad chunk (address %" PRIu64 ", %zu bytes)", queue[i], len);
            goto done;
        }
        free(buf);
        if (!(buf = malloc(len))) {
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
        if (scan_chunk(sb, ohver, ohflags, buf + skip, len - skip, off + skip, queue, qlen, &nq, &found, &found_len,
                       e) < 0)
            goto done;
    }
    ret = 0;
    if (found != SB_UNDEF) {
        unsigned char m[11];
        ret = -1;
        if (found_len < sizeof m + 1) {
            h5sf_fail(e, EINVAL, "superblock extension: driver info message of %zu bytes is too short", found_len);
            goto done;
        }
        if (read_exact(rd, ctx, found, m, sizeof m, "the driver info message", e) < 0)
            goto done;
        if (m[0] != 0) {
            h5sf_fail(e, EINVAL, "driver info message: unknown version %u", m[0]);
            goto done;
        }
        size_t n = (size_t)h5sf_get_uint(m + 9, 2);
        if (n + sizeof m > found_len) {
            h5sf_fail(e, EINVAL, "driver info message: %zu bytes of info do not fit its %zu-byte message", n,
                      found_len);
            goto done;
        }
        if (set_drvinfo(sb, (const char *)m + 1, found + sizeof m, n, e) < 0 ||
            read_exact(rd, ctx, sb->drvinfo_off, sb->drv_buf, n, "the driver info", e) < 0)
            goto done;
        ret = 0;
    }
done:
    free(buf);
    return ret;
}

/* ---- the superblock ----------------------------------------------------- */

static bool good_size(int n) { return n == 2 || n == 4 || n == 8; }

int sb_read(sb_read_fn rd, void *ctx, uint64_t file_size, sb_info_t *sb, h5sf_errbuf_t *e)
{
    memset(sb, 0, sizeof *sb);
    sb->ext_addr = sb->driver_addr = SB_UNDEF;
    uint64_t at                    = 0;
    for (;;) {
        unsigned char sig[8];
        if (at + sizeof sig > file_size)
            return h5sf_fail(e, EINVAL, "no HDF5 signature found (looked at offset 0 and powers of two from 512)");
        if (read_exact(rd, ctx, at, sig, sizeof sig, "the superblock signature", e) < 0)
            return -1;
        if (memcmp(sig, SIGNATURE, sizeof sig) == 0)
            break;
        at = at ? 2 * at : 512;
    }
    sb->sig_off = at;
    ssize_t n   = rd(ctx, at, sb->raw, sizeof sb->raw);
    if (n < 0)
        return h5sf_fail(e, errno, "cannot read the superblock at %" PRIu64 ": %s", at, strerror(errno));
    const unsigned char *r   = sb->raw;
    size_t               got = (size_t)n;
    if (got < 16)
        return h5sf_fail(e, EINVAL, "superblock at %" PRIu64 " is cut off", at);
    sb->version = r[8];
    size_t fields;
    if (sb->version <= 1) {
        sb->sizeof_addr = r[13];
        sb->sizeof_size = r[14];
        fields          = sb->version == 0 ? 24 : 28;
        sb->sb_len      = fields + 5 * (size_t)sb->sizeof_addr + (size_t)sb->sizeof_size + 24;
        if (got >= 24)
            sb->status_flags = (unsigned)h5sf_get_uint(r + 20, 4);
    }
    else if (sb->version <= 3) {
        sb->sizeof_addr  = r[9];
        sb->sizeof_size  = r[10];
        sb->status_flags = r[11];
        fields           = 12;
        sb->sb_len       = 16 + 4 * (size_t)sb->sizeof_addr;
    }
    else
        return h5sf_fail(e, EINVAL, "superblock version %d is not known (0..3)", sb->version);
    if (!good_size(sb->sizeof_addr) || !good_size(sb->sizeof_size))
        return h5sf_fail(e, EINVAL, "superblock: unsupported address/length sizes %d/%d", sb->sizeof_addr,
                         sb->sizeof_size);
    if (got < sb->sb_len)
        return h5sf_fail(e, EINVAL, "superblock (version %d, %zu bytes) is cut off after %zu bytes", sb->version,
                         sb->sb_len, got);
    const int O   = sb->sizeof_addr;
    sb->base_addr = get_addr(r + fields, O);
    sb->ext_addr  = get_addr(r + fields + O, O);
    sb->eof       = get_addr(r + fields + 2 * O, O);
    if (sb->version <= 1)
        sb->driver_addr = get_addr(r + fields + 3 * O, O);
    sb->checksum_ok = true;
    if (sb->version >= 2) {
        size_t body     = sb->sb_len - 4;
        sb->checksum_ok = sb_checksum(r, body) == (uint32_t)h5sf_get_uint(r + body, 4);
        if (!sb->checksum_ok)
            return h5sf_fail(e, EINVAL,
                             "superblock checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")",
                             (uint32_t)h5sf_get_uint(r + body, 4), sb_checksum(r, body));
    }
    if (sb->base_addr == SB_UNDEF || sb->eof == SB_UNDEF)
        return h5sf_fail(e, EINVAL, "superblock has no base or end-of-file address");
    /* As HDF5 does: a superblock found elsewhere than its recorded base moves the base. */
    if (sb->base_addr != at) {
        sb->eof -= sb->base_addr - at;
        sb->base_addr = at;
    }
    if (sb->version <= 1 && sb->driver_addr != SB_UNDEF)
        return read_drvinfo_block(rd, ctx, sb, e);
    if (sb->version >= 2 && sb->ext_addr != SB_UNDEF)
        return read_drvinfo_msg(rd, ctx, sb, e);
    return 0;
}

/* ---- adding driver info (h5sf-split) ------------------------------------ */

int sb_add_drvinfo(const sb_info_t *sb, const char name[9], const unsigned char *info, size_t info_len,
                   unsigned char *sb_out, size_t *sb_len, unsigned char *tail, size_t *tail_len, h5sf_errbuf_t *e)
{
    const int O = sb->sizeof_addr;
    if (info_len == 0 || info_len > SB_DRVINFO_MAX)
        return h5sf_fail(e, EINVAL, "driver info of %zu bytes does not fit a superblock", info_len);
    if (sb->has_drvinfo)
        return h5sf_fail(e, EEXIST, "the superblock already has driver info (\"%s\")", sb->drv_name);
    memcpy(sb_out, sb->raw, sb->sb_len);
    *sb_len = sb->sb_len;
    if (sb->eof < sb->base_addr)
        return h5sf_fail(e, EINVAL, "superblock: end of file %" PRIu64 " lies before the base address %" PRIu64,
                         sb->eof, sb->base_addr);
    const uint64_t at = sb->eof - sb->base_addr; /* new structure goes at the old end of file (relative) */

    if (sb->version <= 1) {
        size_t fields = sb->version == 0 ? 24 : 28;
        /* Block: version 0, 3 reserved bytes, info size, driver name, info. */
        memset(tail, 0, DRVINFO_HDR);
        h5sf_put_uint(tail + 4, info_len, 4);
        memcpy(tail + 8, name, 8);
        memcpy(tail + DRVINFO_HDR, info, info_len);
        *tail_len = DRVINFO_HDR + info_len;
        h5sf_put_uint(sb_out + fields, sb->base_addr, O);
        h5sf_put_uint(sb_out + fields + 2 * O, sb->eof + *tail_len, O);
        h5sf_put_uint(sb_out + fields + 3 * O, at, O);
        return 0;
    }
    if (sb->ext_addr != SB_UNDEF)
        return h5sf_fail(e, ENOTSUP,
                         "the version %d superblock already has an extension (file-space or shared-message "
                         "settings); h5sf-split cannot add driver info to it",
                         sb->version);
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
    h5sf_put_uint(p, sb_checksum(tail, (size_t)(p - tail)), 4);
    p += 4;
    *tail_len = (size_t)(p - tail);
    h5sf_put_uint(sb_out + 12, sb->base_addr, O);
    h5sf_put_uint(sb_out + 12 + O, at, O);
    h5sf_put_uint(sb_out + 12 + 2 * O, sb->eof + *tail_len, O);
    h5sf_put_uint(sb_out + sb->sb_len - 4, sb_checksum(sb_out, sb->sb_len - 4), 4);
    return 0;
}
