/*
 * sblock.h -- just enough of the HDF5 file format for the tools: find and
 * decode the superblock, find the driver-info block (version 0/1) or the
 * driver-info message in the superblock extension (version 2/3), and build
 * the bytes h5sf-split needs to add driver info to a plain file.
 *
 * Format reference: HDF5 File Format Specification 3.0, sections II.A
 * (superblock), II.B (driver info block), IV.A.1 (object headers) and the
 * "Driver Info" message (0x0014); H5Fsuper_cache.c and H5Ocache.c.
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

#define SB_UNDEF       UINT64_MAX
#define SB_DRVINFO_MAX 1024 /* H5F_MAX_DRVINFOBLOCK_SIZE */
#define SB_RAW_MAX     256  /* any superblock with 8-byte addresses fits */

/* Read len bytes at absolute offset off; returns the bytes read (fewer at
 * end of file) or -1 on error (errno set). */
typedef ssize_t (*sb_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

typedef struct sb_info {
    uint64_t      sig_off; /* absolute offset of the signature (user block size) */
    int           version; /* 0..3 */
    int           sizeof_addr, sizeof_size;
    unsigned      status_flags;
    uint64_t      base_addr;   /* as stored (absolute) */
    uint64_t      ext_addr;    /* superblock extension, relative to base; SB_UNDEF if none */
    uint64_t      eof;         /* end of file, absolute: HDF5 stores it so (H5F__super_read) */
    uint64_t      driver_addr; /* v0/1 driver info block, relative to base; SB_UNDEF if none */
    size_t        sb_len;      /* bytes of the superblock itself */
    unsigned char raw[SB_RAW_MAX];
    bool          checksum_ok; /* v2/3 only; always true for v0/1 */
    /* driver info, wherever it lives */
    bool          has_drvinfo;
    uint64_t      drvinfo_off; /* absolute offset of the info bytes */
    char          drv_name[9];
    unsigned char drv_buf[SB_DRVINFO_MAX];
    size_t        drv_len;
} sb_info_t;

/* HDF5's metadata checksum (Bob Jenkins' lookup3 hashlittle, initval 0). */
uint32_t sb_checksum(const void *buf, size_t len);

/* Find and decode the superblock: signature at 0, 512, 1024, ... below
 * file_size.  Then the driver info, if any.  Messages name what is wrong. */
int sb_read(sb_read_fn rd, void *ctx, uint64_t file_size, sb_info_t *sb, h5sf_errbuf_t *e);

/*
 * For h5sf-split: a copy of sb->raw (the patched superblock, *sb_len bytes)
 * and the bytes to append at absolute offset sb->eof
 * (*tail_len bytes, at most SB_TAIL_MAX) so that the file carries the driver
 * info block (v0/1) or a new superblock extension holding a driver-info
 * message (v2/3).  Fails if a v2/3 superblock already has an extension.
 */
#define SB_TAIL_MAX (SB_DRVINFO_MAX + 64)
int sb_add_drvinfo(const sb_info_t *sb, const char name[9], const unsigned char *info, size_t info_len,
                   unsigned char *sb_out, size_t *sb_len, unsigned char *tail, size_t *tail_len, h5sf_errbuf_t *e);

#endif
