/*
 * bytes.h -- little-endian integers in byte buffers, after SQLite's
 * sqlite3Get4byte / sqlite3Put4byte (util.c): the one place h5sf turns
 * integers into bytes and back, for the IOC wire format (wire.c), the
 * superblock and its driver info (superblock.c, layout.c) and the tools.
 *
 * Byte by byte, so alignment and host byte order never matter.  The
 * caller owns the bounds: every reader here takes the bytes it is told to.
 */
#ifndef H5SF_BYTES_H
#define H5SF_BYTES_H

#include <stdint.h>

static inline uint16_t h5sf_get_u16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t h5sf_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t h5sf_get_u64(const unsigned char *p)
{
    return (uint64_t)h5sf_get_u32(p) | (uint64_t)h5sf_get_u32(p + 4) << 32;
}

static inline void h5sf_put_u16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static inline void h5sf_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static inline void h5sf_put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* n bytes (1..8): HDF5's addresses and lengths, whose width the superblock
 * gives (its "size of offsets" and "size of lengths"). */
static inline uint64_t h5sf_get_uint(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}
static inline void h5sf_put_uint(unsigned char *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

#endif
