/*
 * sblock.h -- just enough of the HDF5 file format for the tools and the
 * driver's open (drvlen.c): on top of
 * the superblock (common/superblock.h), find the driver-info block (version
 * 0/1) or the driver-info message in the superblock extension (version
 * 2/3), and build the bytes h5sf-split needs to add driver info to a plain
 * file.
 *
 * Format reference: HDF5 File Format Specification 3.0, sections II.B
 * (driver info block), IV.A.1 (object headers) and the "Driver Info"
 * message (0x0014); H5Fsuper_cache.c and H5Ocache.c.
 * No HDF5 calls: the tools parse the bytes themselves so that a damaged
 * file can still be described.
 */
#ifndef H5SF_TOOLS_SBLOCK_H
#define H5SF_TOOLS_SBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "errbuf.h"
#include "superblock.h"

#define SB_DRVINFO_MAX 1024 /* H5F_MAX_DRVINFOBLOCK_SIZE */

typedef struct sb_info {
    h5sf_superblock_t hdr;              /* the superblock's fields (common/superblock.h) */
    unsigned char     raw[H5SF_SB_MAX]; /* its bytes (hdr.len of them) */
    /* driver info, wherever it lives */
    bool          has_drvinfo;
    uint64_t      drvinfo_off; /* absolute offset of the info bytes */
    char          drv_name[9];
    unsigned char drv_buf[SB_DRVINFO_MAX];
    size_t        drv_len;
} sb_info_t;

/* Find and decode the superblock (common/superblock.c), then find and read
 * the driver info, if any.  Messages name what is wrong. */
int sb_read(h5sf_read_at_fn rd, void *ctx, uint64_t file_size, sb_info_t *sb, h5sf_errbuf_t *e);

/*
 * For h5sf-split: a copy of sb->raw (the patched superblock, *sb_len bytes)
 * and the bytes to append at absolute offset sb->hdr.eof
 * (*tail_len bytes, at most SB_TAIL_MAX) so that the file carries the driver
 * info block (v0/1) or a new superblock extension holding a driver-info
 * message (v2/3).  Fails if a v2/3 superblock already has an extension.
 */
#define SB_TAIL_MAX (SB_DRVINFO_MAX + 64)
int sb_add_drvinfo(const sb_info_t *sb, const char name[9], const unsigned char *info, size_t info_len,
                   unsigned char *sb_out, size_t *sb_len, unsigned char *tail, size_t *tail_len, h5sf_errbuf_t *e);

#endif
