/*
 * superblock.h -- the HDF5 superblock, versions 0 to 3: find it in a file
 * and decode it.  The driver (common/layout.c: h5sf_stub_lacks_root) and
 * the tools (common/sblock.c, which goes on to the driver info) both read
 * it here.
 *
 * Format reference: HDF5 File Format Specification 3.0, section II.A, and
 * H5Fsuper_cache.c (H5F__cache_superblock_deserialize).  No HDF5 calls: a
 * damaged file can still be described.  The decoder reads untrusted bytes
 * (fuzzed by test/fuzz/fuzz_superblock.c): (pointer, length) only, and it
 * fills its result only after the whole superblock checked out.
 */
#ifndef H5SF_SUPERBLOCK_H
#define H5SF_SUPERBLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "bytes.h"
#include "errbuf.h"

#define H5SF_SB_UNDEF UINT64_MAX /* an address field of all ones: HDF5's "undefined" */
#define H5SF_SB_MAX   256        /* bytes that hold any superblock with 8-byte fields */

/* An address field of n bytes (the superblock's sizeof_addr). */
static inline uint64_t h5sf_sb_addr(const unsigned char *p, int n)
{
    uint64_t v = h5sf_get_uint(p, (unsigned)n);
    return (n == 8 ? v == UINT64_MAX : v == (((uint64_t)1 << (8 * n)) - 1)) ? H5SF_SB_UNDEF : v;
}

typedef struct h5sf_superblock {
    uint64_t sig_off;                  /* absolute offset of the signature (the user block's size) */
    size_t   len;                      /* bytes of the superblock, from its signature */
    int      version;                  /* 0..3 */
    int      sizeof_addr, sizeof_size; /* 2, 4 or 8 */
    unsigned status_flags;
    uint64_t base_addr; /* absolute: sig_off, where HDF5 takes it to be (H5F__super_read) */
    /* Relative to base_addr; H5SF_SB_UNDEF if none. */
    uint64_t ext_addr;    /* superblock extension (versions 2/3 use it) */
    uint64_t driver_addr; /* driver info block (versions 0/1) */
    uint64_t root_addr;   /* the root group's object header */
    uint64_t eof;         /* end of file: as stored, less the base's move (H5F__super_read) */
} h5sf_superblock_t;

/* Decode the superblock whose signature starts buf (len bytes readable),
 * found at absolute offset sig_off.  Checks the signature, version, field
 * sizes, length, checksum (versions 2/3) and that base and end of file are
 * defined; messages name what is wrong.  *sb is untouched on failure. */
int h5sf_superblock_decode(const unsigned char *buf, size_t len, uint64_t sig_off, h5sf_superblock_t *sb,
                           h5sf_errbuf_t *e);

/* Read len bytes at absolute offset off: the bytes read (fewer only at end
 * of file), or -1 with errno set. */
typedef ssize_t (*h5sf_read_at_fn)(void *ctx, uint64_t off, void *buf, size_t len);

/* Find the superblock as HDF5 does (signature at 0, 512, 1024, 2048 ...
 * below file_size) and decode it; raw receives its sb->len bytes. */
int h5sf_superblock_read(h5sf_read_at_fn rd, void *ctx, uint64_t file_size, h5sf_superblock_t *sb,
                         unsigned char raw[H5SF_SB_MAX], h5sf_errbuf_t *e);

/* HDF5's metadata checksum (H5_checksum_metadata: Bob Jenkins' lookup3
 * hashlittle, initval 0). */
uint32_t h5sf_metadata_checksum(const void *buf, size_t len);

#endif
