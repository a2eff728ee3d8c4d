/*
 * toolkit.h -- what the h5sf command-line tools share: finding a subfiled
 * file's pieces from its stub (config file, subfiles, sizes), reading and
 * writing logical bytes through the stripe layout, copying byte ranges and
 * whole (sparse) files, and handling untrusted names (tkname.c).  No HDF5
 * or MPI calls.  Every stub, config file and subfile is opened through
 * h5sf_sysio_open (common/sysio.h): no symlink followed but a stub named
 * on the command line, regular files only, no FIFO blocks (docs/security.md).
 */
#ifndef H5SF_TOOLS_TOOLKIT_H
#define H5SF_TOOLS_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "errbuf.h"
#include "layout.h"
#include "sblock.h"
#include "sysio.h"

#define TK_PATH (2 * H5SF_LAYOUT_PATH_MAX)

/* One subfiled file as found on disk. */
typedef struct tk_set {
    h5sf_layout_t l;
    char          stub[TK_PATH]; /* path as given                          */
    uint64_t      stub_size;
    uid_t         stub_uid; /* the stub's owner: the set's             */
    mode_t        perm;     /* permission bits the stub and every present
                               subfile share (st_mode & 0777, ANDed)   */
    char          config[TK_PATH];
    int           n;       /* stripe count                           */
    char        **path;    /* subfile paths                          */
    int          *fd;      /* -1: missing or not opened              */
    int64_t      *size;    /* -1: missing                            */
    int          *err;     /* errno of a failed stat or open, 0 if
                              present (ELOOP: a symlink; H5SF_ENOTREG:
                              not a regular file; neither is used)   */
    uint64_t      sub_eof; /* logical EOF implied by the subfiles    */
} tk_set_t;

/* The config directory: the option if given, else $H5SF_CONFIG_DIR, else
 * $H5FD_SUBFILING_CONFIG_FILE_PREFIX (the built-in's), else "" (the stub's
 * directory) -- the same order as the driver. */
const char *tk_config_dir(const char *opt);

/* Read the layout of the file whose stub is `stub`: open it (tk_open_stub:
 * inode, owner, mode), read the config file, check that the layout's
 * stripe arithmetic cannot overflow, then look at every subfile without
 * following a link: missing ones, symlinks and non-regular files are
 * recorded in err[] (size -1), not an error; the others are opened with
 * open_flags unless it is -1 (then only lstat'ed).  A subfile so large that
 * its logical addresses pass H5SF_ADDR_LIMIT fails.  subfile_dir, if not
 * NULL, overrides the config file's. */
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

/* The stub (or another file named on the command line): a symlink there
 * is resolved on purpose, as the drivers resolve a stub's name; then
 * h5sf_sysio_open (regular file only, no FIFO blocks).  st, if not NULL,
 * receives its fstat.  A descriptor, or -1 with errno set (messages:
 * h5sf_sysio_strerror). */
int tk_open_stub(const char *path, int flags, struct stat *st);

/* The logical address of byte `off` of subfile s, with the arithmetic
 * checked: -1 when it passes H5SF_ADDR_LIMIT (a layout or a subfile size
 * nobody wrote), else 0. */
int tk_logical_addr(uint64_t S, int N, int s, uint64_t off, uint64_t *laddr);

/* Does the file hold an HDF5 signature where HDF5 looks for one (offset 0,
 * 512, 1024, 2048, ...)?  1 yes, 0 no, -1 with errno set on a read error. */
int tk_has_hdf5_signature(int fd, uint64_t size);

/* The process's umask (read without changing it for long; call before
 * starting threads). */
mode_t tk_umask(void);

/* Unlink `path`, a piece (subfile, config file) of a set whose stub is
 * owned by `owner`, only when it is a regular file or a symlink owned by
 * `owner` too: a name that someone else planted, or that a config file
 * points at in another account's directory, is left alone with a warning
 * on stderr after prog.  0 removed or already gone, -1 left (warned). */
int tk_unlink_piece(const char *prog, const char *path, uid_t owner);

/* Full pread/pwrite (retrying short transfers and EINTR). pread returns the
 * bytes read, fewer only at end of file. */
ssize_t tk_pread(int fd, void *buf, size_t n, uint64_t off);
int     tk_pwrite(int fd, const void *buf, size_t n, uint64_t off);

/* Copy len bytes from in@ioff to out@ooff, in the kernel (copy_file_range)
 * when possible.  Returns the bytes copied: fewer than len only when the
 * input ends.  buf (bufsz bytes) is scratch for the fallback. -1 on error. */
int64_t tk_copy_range(int in, uint64_t ioff, int out, uint64_t ooff, uint64_t len, char *buf, size_t bufsz);

/* Copy a whole file, keeping holes.  src is opened as a stub (tk_open_stub)
 * when is_stub, else as a subfile (no link followed); dst is created with
 * O_EXCL (never through a planted name) and mode 0666 & ~umask masked by
 * src's permission bits: never setuid, setgid or sticky, never more open
 * than the source. */
int tk_copy_file(const char *src, bool is_stub, const char *dst, h5sf_errbuf_t *e);

/* Remove the file whose stub is `stub` (for --force): its subfiles and
 * config file when it is a subfiled file (config_dir as for tk_open;
 * through tk_unlink_piece), then the stub.  A symlink at `stub` is the
 * name being replaced: only the link goes, never its target's set (as
 * sec2 replaces a link).  A piece that cannot be removed is a warning on
 * stderr, after prog; a stub that cannot be removed fails (nothing could
 * replace it). */
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

/* ---- untrusted names (tkname.c) ------------------------------------------ */

/* A directory entry next to a stub of base name `base`:
 * "<base>.subfile_<inode>_<nn>_of_<m>" (TK_NAME_SUBFILE), or
 * "<base>.subfile_<inode>.config" (TK_NAME_CONFIG; nn, m untouched). */
enum { TK_NAME_OTHER, TK_NAME_SUBFILE, TK_NAME_CONFIG };
int tk_classify_name(const char *name, const char *base, uint64_t *inode, long *nn, long *m);

/* s as printable text into out (n bytes, cut at a whole character): C0
 * and C1 controls, DEL and bytes that are not well-formed UTF-8 become
 * "\xHH", a backslash "\\"; printable UTF-8 stays.  Returns strlen(out). */
size_t tk_escape(const char *s, char *out, size_t n);
/* fprintf, with the whole result escaped as tk_escape does but for a final
 * newline: every line a tool prints that holds a name, a config value or a
 * message about them goes through here, so that a name cannot move the
 * cursor, clear the screen or fake a line. */
void tk_print(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
