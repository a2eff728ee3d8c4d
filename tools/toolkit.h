/*
 * toolkit.h -- what the h5sf command-line tools share: finding a subfiled
 * file's pieces from its stub (config file, subfiles, sizes), reading and
 * writing logical bytes through the stripe layout, copying byte ranges and
 * whole (sparse) files.  No HDF5 or MPI calls.
 */
#ifndef H5SF_TOOLS_TOOLKIT_H
#define H5SF_TOOLS_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "errbuf.h"
#include "layout.h"
#include "sblock.h"

#define TK_PATH (2 * H5SF_LAYOUT_PATH_MAX)

/* One subfiled file as found on disk. */
typedef struct tk_set {
    h5sf_layout_t l;
    char          stub[TK_PATH]; /* path as given                          */
    uint64_t      stub_size;
    char          config[TK_PATH];
    int           n;       /* stripe count                           */
    char        **path;    /* subfile paths                          */
    int          *fd;      /* -1: missing or not opened              */
    int64_t      *size;    /* -1: missing                            */
    int          *err;     /* errno of a failed stat, 0 if present   */
    uint64_t      sub_eof; /* logical EOF implied by the subfiles    */
} tk_set_t;

/* The config directory: the option if given, else $H5SF_CONFIG_DIR, else
 * $H5FD_SUBFILING_CONFIG_FILE_PREFIX (the built-in's), else "" (the stub's
 * directory) -- the same order as the driver. */
const char *tk_config_dir(const char *opt);

/* Read the layout of the file whose stub is `stub`: stat it (inode), read the
 * config file, then stat every subfile (missing ones are recorded, not an
 * error) and open the present ones with open_flags unless it is -1.
 * subfile_dir, if not NULL, overrides the config file's. */
int tk_open(tk_set_t *t, const char *stub, const char *config_dir, const char *subfile_dir, int open_flags,
            h5sf_errbuf_t *e);
/* Fill path[] and allocate the arrays once t->l is complete (tk_open does
 * this itself; h5sf-split and h5sf-mv call it for a layout they create). */
int  tk_alloc(tk_set_t *t, h5sf_errbuf_t *e);
void tk_close(tk_set_t *t);

/* Logical bytes [off, off+len) through the layout; what lies beyond a
 * subfile's end (or in a missing subfile) reads as zeros.  -1 on error. */
int tk_read_logical(const tk_set_t *t, uint64_t off, void *buf, size_t len);
int tk_write_logical(const tk_set_t *t, uint64_t off, const void *buf, size_t len);

/* The superblock of the logical file (from the subfiles; from the stub when
 * the first subfile is missing).  *from_stub tells which. */
int tk_superblock(const tk_set_t *t, sb_info_t *sb, bool *from_stub, h5sf_errbuf_t *e);

/* Full pread/pwrite (retrying short transfers and EINTR). pread returns the
 * bytes read, fewer only at end of file. */
ssize_t tk_pread(int fd, void *buf, size_t n, uint64_t off);
int     tk_pwrite(int fd, const void *buf, size_t n, uint64_t off);

/* Copy len bytes from in@ioff to out@ooff, in the kernel (copy_file_range)
 * when possible.  Returns the bytes copied: fewer than len only when the
 * input ends.  buf (bufsz bytes) is scratch for the fallback. -1 on error. */
int64_t tk_copy_range(int in, uint64_t ioff, int out, uint64_t ooff, uint64_t len, char *buf, size_t bufsz);

/* Copy a whole file, keeping holes and the permission bits; dst is created
 * (O_EXCL unless replace). */
int tk_copy_file(const char *src, const char *dst, bool replace, h5sf_errbuf_t *e);

/* Remove the file whose stub is `stub` (for --force): its subfiles and
 * config file when it is a subfiled file (config_dir as for tk_open), then
 * the stub.  A piece that cannot be removed is a warning on stderr, after
 * prog; a stub that cannot be removed fails (nothing could replace it). */
int tk_remove_file(const char *prog, const char *stub, const char *config_dir, h5sf_errbuf_t *e);

/*
 * A pool of threads (libuv) running jobs 0..njobs-1.  fn returns the bytes
 * it moved (for the progress bar) or -1 after tk_pool_fail(); the first
 * failure stops the pool.  buf is per-thread scratch of 2 * TK_POOL_BUF
 * bytes.  label != NULL draws a progress bar of `total` bytes on stderr.
 */
#define TK_POOL_BUF ((size_t)8 << 20)
typedef int64_t (*tk_job_fn)(void *arg, size_t job, char *buf);
int         tk_pool_run(int threads, size_t njobs, tk_job_fn fn, void *arg, uint64_t total, const char *label);
void        tk_pool_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool        tk_pool_failed(void);
const char *tk_pool_error(void);

/* An existing directory as an absolute path into out ("" stays ""), so
 * config files and driver info do not depend on the current directory. */
int tk_abs_dir(const char *dir, char *out, size_t n, const char *what, h5sf_errbuf_t *e);

/* dest = dir + "/" + basename(file) (one slash). -1 if too long. */
int tk_join_basename(const char *dir, const char *file, char *dest, size_t n);

/* "1.5 MiB" style rendering for messages. */
const char *tk_human(uint64_t bytes, char *buf, size_t n);

#endif
