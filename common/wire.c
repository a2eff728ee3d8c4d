/*
 * wire.c -- encode and check IOC messages (format in wire.h).
 *
 * The decoder trusts nothing: every length is checked against the bytes
 * actually received before anything is read, and sums are checked for
 * overflow, so a corrupt or hostile message yields an error, never a crash.
 */
#include <errno.h>
#include <string.h>
#include "wire.h"

size_t h5sf_wire_msg_size(const h5sf_wire_hdr_t *h)
{
    size_t n = H5SF_WIRE_HDR_SIZE + (size_t)h->count * 16u;
    if (h->flags & H5SF_WIRE_INLINE)
        n += (size_t)h->total;
    return n;
}

void h5sf_wire_encode(const h5sf_wire_hdr_t *h, const uint64_t *offs, const uint64_t *lens, unsigned char *b)
{
    h5sf_put_u32(b + 0, H5SF_WIRE_MAGIC);
    h5sf_put_u16(b + 4, H5SF_WIRE_VERSION);
    h5sf_put_u16(b + 6, h->op);
    h5sf_put_u64(b + 8, h->id);
    h5sf_put_u32(b + 16, h->file_id);
    h5sf_put_u32(b + 20, h->subfile);
    h5sf_put_u64(b + 24, h->count);
    h5sf_put_u64(b + 32, h->total);
    h5sf_put_u64(b + 40, h->arg);
    h5sf_put_u32(b + 48, h->flags);
    h5sf_put_u32(b + 52, (uint32_t)h->tag);
    unsigned char *p = b + H5SF_WIRE_HDR_SIZE;
    for (uint64_t i = 0; i < h->count; i++, p += 16) {
        h5sf_put_u64(p, offs[i]);
        h5sf_put_u64(p + 8, lens[i]);
    }
}

void h5sf_wire_pair(const unsigned char *pairs, uint64_t i, uint64_t *off, uint64_t *len)
{
    *off = h5sf_get_u64(pairs + 16 * i);
    *len = h5sf_get_u64(pairs + 16 * i + 8);
}

int h5sf_wire_decode(const unsigned char *b, size_t len, h5sf_wire_hdr_t *h, const unsigned char **pairs,
                     const unsigned char **payload, h5sf_errbuf_t *e)
{
    if (len < H5SF_WIRE_HDR_SIZE)
        return h5sf_fail(e, EPROTO, "IOC message of %zu bytes is shorter than a header", len);
    if (h5sf_get_u32(b) != H5SF_WIRE_MAGIC)
        return h5sf_fail(e, EPROTO, "IOC message has a bad magic number 0x%08x", h5sf_get_u32(b));
    if (h5sf_get_u16(b + 4) != H5SF_WIRE_VERSION)
        return h5sf_fail(e, EPROTO, "IOC message has wire version %u, this build speaks %u", h5sf_get_u16(b + 4),
                         H5SF_WIRE_VERSION);
    h->op      = h5sf_get_u16(b + 6);
    h->id      = h5sf_get_u64(b + 8);
    h->file_id = h5sf_get_u32(b + 16);
    h->subfile = h5sf_get_u32(b + 20);
    h->count   = h5sf_get_u64(b + 24);
    h->total   = h5sf_get_u64(b + 32);
    h->arg     = h5sf_get_u64(b + 40);
    h->flags   = h5sf_get_u32(b + 48);
    h->tag     = (int32_t)h5sf_get_u32(b + 52);
    if (h->op < H5SF_WIRE_WRITE || h->op > H5SF_WIRE_OP_MAX)
        return h5sf_fail(e, EPROTO, "IOC message has unknown op %u", h->op);
    if (h->flags & ~(H5SF_WIRE_INLINE | H5SF_WIRE_SHM))
        return h5sf_fail(e, EPROTO, "IOC message has unknown flags 0x%x", h->flags);
    if ((h->flags & H5SF_WIRE_SHM) &&
        ((h->flags & H5SF_WIRE_INLINE) || (h->op != H5SF_WIRE_WRITE && h->op != H5SF_WIRE_READ)))
        return h5sf_fail(e, EPROTO, "IOC message has a shared-memory payload on a %s",
                         (h->flags & H5SF_WIRE_INLINE) ? "message with an inline one" : "control request");
    if (h->tag < 0)
        return h5sf_fail(e, EPROTO, "IOC message has a negative tag");
    if (h->count > H5SF_WIRE_MAX_COUNT || h->count > (len - H5SF_WIRE_HDR_SIZE) / 16)
        return h5sf_fail(e, EPROTO, "IOC message claims %llu pieces but has room for %zu", (unsigned long long)h->count,
                         (len - H5SF_WIRE_HDR_SIZE) / 16);
    if ((h->op == H5SF_WIRE_WRITE || h->op == H5SF_WIRE_READ) ? 0 : h->count != 0)
        return h5sf_fail(e, EPROTO, "IOC control message carries pieces");
    size_t rest = len - H5SF_WIRE_HDR_SIZE - (size_t)h->count * 16;
    if (h->flags & H5SF_WIRE_INLINE) {
        if (h->op != H5SF_WIRE_WRITE || h->total != rest)
            return h5sf_fail(e, EPROTO, "IOC message inline payload is %zu bytes, header says %llu", rest,
                             (unsigned long long)h->total);
    }
    else if (rest != 0)
        return h5sf_fail(e, EPROTO, "IOC message has %zu trailing bytes", rest);

    /* The lengths must add up to total, without wrapping, and no piece may
     * run past the largest offset a file can have. */
    const unsigned char *p   = b + H5SF_WIRE_HDR_SIZE;
    uint64_t             sum = 0;
    for (uint64_t i = 0; i < h->count; i++) {
        uint64_t off, n;
        h5sf_wire_pair(p, i, &off, &n);
        if (off > (uint64_t)INT64_MAX || n > (uint64_t)INT64_MAX - off)
            return h5sf_fail(e, EPROTO, "IOC message piece %llu (offset %llu, length %llu) is out of range",
                             (unsigned long long)i, (unsigned long long)off, (unsigned long long)n);
        if (sum + n < sum)
            return h5sf_fail(e, EPROTO, "IOC message piece lengths overflow");
        sum += n;
    }
    if (sum != h->total)
        return h5sf_fail(e, EPROTO, "IOC message pieces add up to %llu bytes, header says %llu",
                         (unsigned long long)sum, (unsigned long long)h->total);
    *pairs   = p;
    *payload = (h->flags & H5SF_WIRE_INLINE) ? p + h->count * 16 : NULL;
    return 0;
}

void h5sf_wire_reply_encode(const h5sf_wire_reply_t *r, unsigned char *b)
{
    h5sf_put_u32(b, H5SF_WIRE_MAGIC);
    h5sf_put_u32(b + 4, (uint32_t)r->status);
    h5sf_put_u64(b + 8, r->id);
    h5sf_put_u64(b + 16, r->value);
    memcpy(b + 24, r->msg, H5SF_WIRE_REPLY_MSG);
    b[24 + H5SF_WIRE_REPLY_MSG - 1] = '\0';
}

int h5sf_wire_reply_decode(const unsigned char *b, size_t len, h5sf_wire_reply_t *r, h5sf_errbuf_t *e)
{
    if (len != H5SF_WIRE_REPLY_SIZE || h5sf_get_u32(b) != H5SF_WIRE_MAGIC)
        return h5sf_fail(e, EPROTO, "malformed reply from an IOC (%zu bytes)", len);
    r->status = (int32_t)h5sf_get_u32(b + 4);
    r->id     = h5sf_get_u64(b + 8);
    r->value  = h5sf_get_u64(b + 16);
    memcpy(r->msg, b + 24, H5SF_WIRE_REPLY_MSG);
    r->msg[H5SF_WIRE_REPLY_MSG - 1] = '\0';
    return 0;
}
