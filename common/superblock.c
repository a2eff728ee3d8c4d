/*
 * superblock.c -- finding and decoding the HDF5 superblock (superblock.h),
 * and HDF5's metadata checksum that versions 2 and 3 carry.
 *
 * The decoder reads untrusted bytes: every field it reads lies inside the
 * length it was given (checked before the fields are read), and *sb is
 * written once, at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include "superblock.h"

static const unsigned char SIGNATURE[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

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

uint32_t h5sf_metadata_checksum(const void *buf, size_t len)
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

/* ---- the superblock ----------------------------------------------------- */

static bool good_size(int n) { return n == 2 || n == 4 || n == 8; }

int h5sf_superblock_decode(const unsigned char *buf, size_t len, uint64_t sig_off, h5sf_superblock_t *out,
                           h5sf_errbuf_t *e)
{
    h5sf_superblock_t sb = {.sig_off = sig_off};
    size_t            fields; /* bytes before the addresses */

    if (!buf || len < 16)
        return h5sf_fail(e, EINVAL, "superblock at %" PRIu64 " is cut off", sig_off);
    if (memcmp(buf, SIGNATURE, sizeof SIGNATURE) != 0)
        return h5sf_fail(e, EINVAL, "no HDF5 signature at offset %" PRIu64, sig_off);
    sb.version = buf[8];
    if (sb.version <= 1) {
        /* Versions of the free-space, symbol-table and shared-header
         * formats, reserved, then the sizes. */
        sb.sizeof_addr = buf[13];
        sb.sizeof_size = buf[14];
        fields         = sb.version == 0 ? 24 : 28;
    }
    else if (sb.version <= 3) {
        sb.sizeof_addr  = buf[9];
        sb.sizeof_size  = buf[10];
        sb.status_flags = buf[11];
        fields          = 12;
    }
    else
        return h5sf_fail(e, EINVAL, "superblock version %d is not known (0..3)", sb.version);
    if (!good_size(sb.sizeof_addr) || !good_size(sb.sizeof_size))
        return h5sf_fail(e, EINVAL, "superblock: unsupported address/length sizes %d/%d", sb.sizeof_addr,
                         sb.sizeof_size);
    const int O = sb.sizeof_addr, L = sb.sizeof_size;
    /* Versions 0/1: four addresses, then the root group's symbol table
     * entry (name offset L, header address O, cache type 4, reserved 4,
     * scratch 16).  Versions 2/3: four addresses, then the checksum. */
    sb.len = sb.version <= 1 ? fields + 5 * (size_t)O + (size_t)L + 24 : fields + 4 * (size_t)O + 4;
    if (len < sb.len)
        return h5sf_fail(e, EINVAL, "superblock (version %d, %zu bytes) is cut off after %zu bytes", sb.version, sb.len,
                         len);

    if (sb.version <= 1)
        sb.status_flags = h5sf_get_u32(buf + 20);
    sb.base_addr = h5sf_sb_addr(buf + fields, O);
    sb.ext_addr  = h5sf_sb_addr(buf + fields + O, O); /* versions 0/1: HDF5 reads the free-space address as it */
    sb.eof       = h5sf_sb_addr(buf + fields + 2 * O, O);
    if (sb.version <= 1) {
        sb.driver_addr = h5sf_sb_addr(buf + fields + 3 * O, O);
        sb.root_addr   = h5sf_sb_addr(buf + fields + 4 * O + L, O);
    }
    else {
        sb.driver_addr = H5SF_SB_UNDEF;
        sb.root_addr   = h5sf_sb_addr(buf + fields + 3 * O, O);
        size_t   body  = sb.len - 4;
        uint32_t want = h5sf_get_u32(buf + body), got = h5sf_metadata_checksum(buf, body);
        if (want != got)
            return h5sf_fail(e, EINVAL,
                             "superblock checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")", want,
                             got);
    }
    if (sb.base_addr == H5SF_SB_UNDEF || sb.eof == H5SF_SB_UNDEF)
        return h5sf_fail(e, EINVAL, "superblock has no base or end-of-file address");
    /* As HDF5 does: a superblock found elsewhere than its recorded base
     * moves the base (and the end of file with it). */
    if (sb.base_addr != sig_off) {
        sb.eof -= sb.base_addr - sig_off;
        sb.base_addr = sig_off;
    }
    *out = sb;
    return 0;
}

/* ---- finding it --------------------------------------------------------- */

int h5sf_superblock_read(h5sf_read_at_fn rd, void *ctx, uint64_t file_size, h5sf_superblock_t *sb,
                         unsigned char raw[H5SF_SB_MAX], h5sf_errbuf_t *e)
{
    static const char none[] = "no HDF5 signature found (looked at offset 0 and powers of two from 512)";
    unsigned char     sig[sizeof SIGNATURE];
    uint64_t          at = 0;
    for (;;) {
        if (file_size < sizeof sig || at > file_size - sizeof sig)
            return h5sf_fail(e, EINVAL, "%s", none);
        ssize_t n = rd(ctx, at, sig, sizeof sig);
        if (n < 0) {
            int err = errno;
            return h5sf_fail(e, err, "cannot read the superblock signature at offset %" PRIu64 ": %s", at,
                             strerror(err));
        }
        if ((size_t)n < sizeof sig)
            return h5sf_fail(e, EIO, "the superblock signature at offset %" PRIu64 " is cut off by the end of the file",
                             at);
        if (memcmp(sig, SIGNATURE, sizeof sig) == 0)
            break;
        if (at > file_size / 2) /* the next place is past the end (and doubling cannot wrap) */
            return h5sf_fail(e, EINVAL, "%s", none);
        at = at ? 2 * at : 512;
    }
    ssize_t n = rd(ctx, at, raw, H5SF_SB_MAX);
    if (n < 0) {
        int err = errno;
        return h5sf_fail(e, err, "cannot read the superblock at %" PRIu64 ": %s", at, strerror(err));
    }
    return h5sf_superblock_decode(raw, (size_t)n < H5SF_SB_MAX ? (size_t)n : H5SF_SB_MAX, at, sb, e);
}
