/*
 * drvinfo.c -- the superblock driver-info block of a subfiled file (layout.h):
 * "Subfilin" with the built-in driver's fields and its nested "IOC" block,
 * byte-compatible with HDF5 1.14's subfiling driver.
 *
 * The decoder reads untrusted bytes (fuzzed by test/fuzz/fuzz_drvinfo.c):
 * never past the length it is given, which the driver read from the file
 * at open (drvlen.h).  No HDF5 or MPI calls.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "bytes.h"
#include "layout.h"

#define SF_MAGIC    0xFED01331u
#define SF_VERSION  1u
#define IOC_NAME    "IOC"
#define IOC_MAGIC   0xFED21331u
#define IOC_VERSION 1u
#define IOC_THREADS 4 /* H5FD_IOC_DEFAULT_THREAD_POOL_SIZE: what the built-in records */
#define SF_FIXED    (4 + 4 + 4 + 8 + 8 + 8)
#define IOC_FIXED   (4 + 4 + 4 + 8 + 8)

/* ---- driver info -------------------------------------------------------- */

static size_t prefix_len(const h5sf_layout_t *l)
{
    const char *z = memchr(l->config_dir, '\0', sizeof l->config_dir);
    size_t      n = z ? (size_t)(z - l->config_dir) : sizeof l->config_dir;
    return n ? n + 1 : 0;
}

size_t h5sf_drvinfo_size(const h5sf_layout_t *l) { return SF_FIXED + prefix_len(l) + 9 + IOC_FIXED; }

int h5sf_drvinfo_encode(const h5sf_layout_t *l, char name[9], unsigned char *buf)
{
    size_t plen = prefix_len(l);
    if (!sf_stripes_fit((uint64_t)l->stripe_size, l->stripe_count) || l->stripe_count > H5SF_MAX_STRIPE_COUNT ||
        plen > sizeof l->config_dir || h5sf_drvinfo_size(l) > H5SF_DRVINFO_MAX)
        return -1; /* the built-in could not read it back either */
    memcpy(name, H5SF_DRVINFO_NAME, 9);
    /* Little-endian, as HDF5's UINT32ENCODE / INT64ENCODE. */
    unsigned char *p = buf;
    h5sf_put_u32(p, SF_MAGIC);
    h5sf_put_u32(p + 4, SF_VERSION);
    h5sf_put_u32(p + 8, 1); /* require_ioc: the built-in always requires it */
    h5sf_put_u64(p + 12, (uint64_t)l->stripe_size);
    h5sf_put_u64(p + 20, (uint64_t)(int64_t)l->stripe_count);
    h5sf_put_u64(p + 28, (uint64_t)plen);
    p += SF_FIXED;
    if (plen) {
        memcpy(p, l->config_dir, plen);
        p += plen;
    }
    /* The nested IOC block: its 9-byte name, then its own fields. */
    memset(p, 0, 9);
    memcpy(p, IOC_NAME, sizeof IOC_NAME);
    p += 9;
    h5sf_put_u32(p, IOC_MAGIC);
    h5sf_put_u32(p + 4, IOC_VERSION);
    h5sf_put_u32(p + 8, (uint32_t)IOC_THREADS);
    h5sf_put_u64(p + 12, (uint64_t)l->stripe_size);
    h5sf_put_u64(p + 20, (uint64_t)(int64_t)l->stripe_count);
    return 0;
}

/* Bounds-checked reader over buf[0..len). */
typedef struct {
    const unsigned char *p;
    size_t               left;
} rd_t;

static const unsigned char *take(rd_t *r, size_t n)
{
    if (r->left < n)
        return NULL;
    const unsigned char *q = r->p;
    r->p += n;
    r->left -= n;
    return q;
}

#define TAKE(q, r, n, what)                                                                                            \
    do {                                                                                                               \
        if (!((q) = take((r), (n))))                                                                                   \
            return h5sf_fail(e, EINVAL, "driver info truncated in %s", (what));                                        \
    } while (0)

static int check_stripes(int64_t size, int64_t count, const char *block, h5sf_errbuf_t *e)
{
    if (size <= 0)
        return h5sf_fail(e, EINVAL, "driver info (%s block): stripe size %" PRId64 " is not positive", block, size);
    if (count < 1 || count > H5SF_MAX_STRIPE_COUNT)
        return h5sf_fail(e, EINVAL, "driver info (%s block): stripe count %" PRId64 " out of range (1..%d)", block,
                         count, H5SF_MAX_STRIPE_COUNT);
    if (!sf_stripes_fit((uint64_t)size, count))
        return h5sf_fail(e, EINVAL,
                         "driver info (%s block): stripe size %" PRId64 " x %" PRId64
                         " subfiles puts the last subfile past h5sf's 2^62-byte address space",
                         block, size, count);
    return 0;
}

int h5sf_drvinfo_decode(const char *name, const unsigned char *buf, size_t len, h5sf_layout_t *l, h5sf_errbuf_t *e)
{
    /* No block is longer than H5SF_DRVINFO_MAX: whatever len says, never
     * read past it (HDF5 does not tell sb_decode the block's length). */
    rd_t                 r = {buf, buf ? (len < H5SF_DRVINFO_MAX ? len : H5SF_DRVINFO_MAX) : 0};
    const unsigned char *q;
    char                 show[16];

    if (!name || strncmp(name, H5SF_DRVINFO_NAME, 9) != 0) {
        h5sf_show_line(name ? name : "", name ? strnlen(name, 8) : 0, show, sizeof show);
        return h5sf_fail(e, EINVAL, "driver info name \"%s\" is not \"%s\"", show, H5SF_DRVINFO_NAME);
    }
    TAKE(q, &r, SF_FIXED, "the Subfilin header");
    uint32_t magic = h5sf_get_u32(q), version = h5sf_get_u32(q + 4), require_ioc = h5sf_get_u32(q + 8);
    int64_t  size = (int64_t)h5sf_get_u64(q + 12), count = (int64_t)h5sf_get_u64(q + 20);
    uint64_t plen = h5sf_get_u64(q + 28);
    if (magic != SF_MAGIC)
        return h5sf_fail(e, EINVAL, "driver info: bad magic 0x%08" PRIx32 " (expected 0x%08x)", magic, SF_MAGIC);
    if (version != SF_VERSION)
        return h5sf_fail(e, EINVAL, "driver info: unsupported version %" PRIu32, version);
    if (require_ioc > 1)
        return h5sf_fail(e, EINVAL, "driver info: bad require_ioc value %" PRIu32, require_ioc);
    if (check_stripes(size, count, "Subfilin", e) < 0)
        return -1;
    /* The prefix and the IOC block after it must fit in what is left. */
    if (plen > r.left || r.left - plen < 9 + IOC_FIXED)
        return h5sf_fail(e, EINVAL,
                         "driver info truncated: config prefix of %" PRIu64 " bytes does not fit in the "
                         "block (at most %zu bytes)",
                         plen, (size_t)(r.p - buf) + r.left);
    if (plen > H5SF_LAYOUT_PATH_MAX)
        return h5sf_fail(e, ENAMETOOLONG, "driver info: config prefix length %" PRIu64 " longer than %d", plen,
                         H5SF_LAYOUT_PATH_MAX);
    const unsigned char *prefix = NULL;
    if (plen) {
        TAKE(prefix, &r, (size_t)plen, "the config prefix");
        if (prefix[plen - 1] != '\0')
            return h5sf_fail(e, EINVAL, "driver info: config prefix is not NUL-terminated");
        if (memchr(prefix, '\0', (size_t)plen - 1))
            return h5sf_fail(e, EINVAL, "driver info: config prefix has a NUL byte inside");
    }

    TAKE(q, &r, 9, "the IOC block name");
    if (memcmp(q, IOC_NAME, sizeof IOC_NAME) != 0) { /* "IOC" + NUL, as strncmp(name, "IOC", 9) */
        h5sf_show_line((const char *)q, strnlen((const char *)q, 8), show, sizeof show);
        return h5sf_fail(e, EINVAL, "driver info: nested block \"%s\" is not \"%s\"", show, IOC_NAME);
    }
    TAKE(q, &r, IOC_FIXED, "the IOC block");
    uint32_t imagic = h5sf_get_u32(q), iversion = h5sf_get_u32(q + 4);
    int64_t  isize = (int64_t)h5sf_get_u64(q + 12), icount = (int64_t)h5sf_get_u64(q + 20);
    if (imagic != IOC_MAGIC)
        return h5sf_fail(e, EINVAL, "driver info: IOC block has bad magic 0x%08" PRIx32 " (expected 0x%08x)", imagic,
                         IOC_MAGIC);
    if (iversion != IOC_VERSION)
        return h5sf_fail(e, EINVAL, "driver info: IOC block has unsupported version %" PRIu32, iversion);
    if (check_stripes(isize, icount, "IOC", e) < 0)
        return -1;
    if (isize != size || icount != count)
        return h5sf_fail(e, EINVAL,
                         "driver info: Subfilin block (stripe size %" PRId64 ", %" PRId64 " subfiles) and IOC block "
                         "(stripe size %" PRId64 ", %" PRId64 " subfiles) disagree",
                         size, count, isize, icount);

    l->stripe_size  = size;
    l->stripe_count = (int32_t)count;
    if (prefix)
        memcpy(l->config_dir, prefix, (size_t)plen);
    else
        l->config_dir[0] = '\0';
    return 0;
}
