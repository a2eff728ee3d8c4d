/*
 * layout.h -- the on-disk layout record: names, the config file, and the
 * superblock driver-info block.
 *
 * All three are byte-compatible with HDF5 1.14's built-in subfiling driver:
 *   subfile:  <subfile_dir>/<base>.subfile_<inode>_<NN>_of_<N>
 *   config:   <config_dir>/<base>.subfile_<inode>.config
 *   drvinfo:  name "Subfilin", then the built-in's fields and its nested "IOC"
 *             block.
 * <inode> is the stub file's inode number; <NN> is 1-based and zero-padded to
 * the width of N (as the built-in does).  No HDF5 or MPI calls in here.
 */
#ifndef H5SF_LAYOUT_H
#define H5SF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "bounds.h"
#include "errbuf.h"
#include "stripe.h"

#define H5SF_LAYOUT_PATH_MAX H5SF_PATH_MAX /* each directory, the stub's base name */

typedef struct h5sf_layout {
    int64_t  stripe_size;
    int32_t  stripe_count;                      /* number of subfiles                       */
    int32_t  ioc_count;                         /* IOCs at write time (config "aggregator_count") */
    uint64_t inode;                             /* stub inode, part of every name            */
    char     base[H5SF_LAYOUT_PATH_MAX];        /* stub basename            */
    char     stub_dir[H5SF_LAYOUT_PATH_MAX];    /* directory of the stub    */
    char     subfile_dir[H5SF_LAYOUT_PATH_MAX]; /* "" = stub_dir            */
    char     config_dir[H5SF_LAYOUT_PATH_MAX];  /* "" = stub_dir            */
    int32_t  plain;                             /* 1: a plain HDF5 file (no config file): the
                               stub is the one "subfile", no driver info  */
    uint32_t drvinfo_len;                       /* an existing subfiled file's driver info length,
                               as its superblock declares it (drvlen.h); 0: unknown */
} h5sf_layout_t;

/* Stripe size of a plain file's layout: one stripe holds every address
 * h5sf accepts (2^62 - 1 at most), so logical address = file offset. */
#define H5SF_PLAIN_STRIPE ((int64_t)H5SF_ADDR_LIMIT)

/* Decimal digits of v: the width of the zero-padded subfile numbers (the
 * built-in's (int)(log10(n) + 1), without libm) and of inode numbers in
 * names. */
static inline int h5sf_digits(uint64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* Make l (stub already set) the layout of a plain HDF5 file: one subfile,
 * the stub itself, one stripe. */
void h5sf_layout_set_plain(h5sf_layout_t *l);

/* Split a stub path into base and stub_dir (dir made absolute).  An existing
 * stub's path is resolved (realpath: a symlink at the name is followed on
 * purpose), so that config and subfile names derive from the real stub. */
int h5sf_layout_set_stub(h5sf_layout_t *l, const char *stub_path, h5sf_errbuf_t *e);
/* stub_dir/base: the stub as set_stub resolved it, the name to open. */
int h5sf_stub_path(const h5sf_layout_t *l, char *buf, size_t n, h5sf_errbuf_t *e);

/* Set subfile_dir for a new file: a relative dir is taken against the
 * current directory and stored absolute ("" or NULL = the stub's). */
int h5sf_layout_set_subfile_dir(h5sf_layout_t *l, const char *dir, h5sf_errbuf_t *e);

/* Full paths; idx is 0-based. Return -1 (with message) if too long.  A
 * plain layout's one subfile is the stub; it has no config file. */
int h5sf_subfile_path(const h5sf_layout_t *l, int idx, char *buf, size_t n, h5sf_errbuf_t *e);
int h5sf_config_path(const h5sf_layout_t *l, char *buf, size_t n, h5sf_errbuf_t *e);

/* 1 if the stub open on fd is a subfiled file's: its superblock (versions
 * 2 and 3) names a root object header that the stub does not hold (zeros:
 * the objects are in the subfiles).  0 for a plain file, or when it cannot
 * tell (versions 0 and 1 keep their driver-info block in the stub itself,
 * which the driver's sb_decode checks; a superblock that superblock.c
 * rejects, e.g. for its checksum, is left for HDF5 to report). */
int h5sf_stub_lacks_root(int fd);

/* Read the layout of an existing file whose stub is open on stub_fd (l's
 * stub, inode and config_dir set): 0 with the config file read into l; 1
 * for a plain HDF5 file (no config file, and the stub is no subfiled
 * file's: neither h5sf_stub_lacks_root nor a subfiling driver-info block
 * in a version 0/1 superblock), l made plain; -1 with e naming the config
 * file if it is missing from a subfiled file (`name`: the stub as the
 * caller knows it), or cannot be stat'ed or read.  The one decision open,
 * delete and H5FD_h5sf_get_files share. */
int h5sf_layout_load(h5sf_layout_t *l, int stub_fd, const char *name, h5sf_errbuf_t *e);

/* Write the config file (atomically: temp file + rename), built-in format. */
int h5sf_config_file_write(const h5sf_layout_t *l, h5sf_errbuf_t *e);
/* Parse config file text (fuzzed); fills stripe_size, stripe_count,
 * ioc_count and subfile_dir (as written); names the bad line on failure.
 * Subfile name lines, if any, must be exactly l's (base, inode), numbered
 * 1..N in order, all N of them. */
int h5sf_config_file_parse(const char *text, size_t len, h5sf_layout_t *l, h5sf_errbuf_t *e);
/* Read and parse the config file at h5sf_config_path(l); a relative
 * subfile_dir in it is made absolute against l->stub_dir. */
int h5sf_config_file_read(h5sf_layout_t *l, h5sf_errbuf_t *e);
/* The stub the config file at h5sf_config_path(l) names (hdf5_file=), into
 * out (n bytes); -1 with e if it cannot be read or names none. */
int h5sf_config_file_stub(const h5sf_layout_t *l, char *out, size_t n, h5sf_errbuf_t *e);

/* A printable copy of s[0..len) for messages, in out (n bytes): control
 * bytes as '?', cut with "..." to fit. */
void h5sf_show_line(const char *s, size_t len, char *out, size_t n);

/* The driver-info block's name, as both drivers write it (drvinfo.c). */
#define H5SF_DRVINFO_NAME "Subfilin"

/* Longest driver-info block: HDF5's H5F_MAX_DRVINFOBLOCK_SIZE (it writes
 * none longer) and the built-in's H5FD_SUBFILING_MAX_DRV_INFO_SIZE; the
 * encoder refuses a layout whose block would be longer. */
#define H5SF_DRVINFO_MAX 1024

/* Driver-info block ("Subfilin" + nested "IOC"). config_prefix is the
 * config_dir recorded in the block ("" if default). */
size_t h5sf_drvinfo_size(const h5sf_layout_t *l);
int    h5sf_drvinfo_encode(const h5sf_layout_t *l, char name[9], unsigned char *buf);
/* Decode (fuzzed): len is the block's length (HDF5's buffer holds exactly
 * that many bytes); it never reads past min(len, H5SF_DRVINFO_MAX), and
 * every length in the block is checked against what is left of that.
 * Fills stripe_size, stripe_count and config_dir; rejects garbage. */
int h5sf_drvinfo_decode(const char *name, const unsigned char *buf, size_t len, h5sf_layout_t *l, h5sf_errbuf_t *e);

#endif
