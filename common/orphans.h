/*
 * orphans.h -- the pieces of subfiled files whose stub is gone (orphans.c),
 * and which names in a directory are a set's.
 *
 * A subfiled file is a stub, a config file <base>.subfile_<N>.config and
 * subfiles <base>.subfile_<N>_<k>_of_<n>, N the stub's inode.  A program
 * that removes only the stub (netCDF's abort path calls remove()) leaves
 * the config file and subfiles behind, named for an inode no file has any
 * more.  Such a set is an orphan when its config file's stub (hdf5_file=)
 * does not exist or has another inode, and no file in the stub's
 * directory, nor in the subfiles' directory, has inode N (a stub renamed
 * there with mv keeps its inode: not an orphan).  h5sf-orphans lists and
 * removes them; H5Fcreate reclaims those of the name it creates, and the
 * preload shim those of a subfiled file a plain create replaces.
 *
 * Config files are untrusted: anyone who can write a directory can plant
 * one naming any stub, any inode and any subfile_dir.  So an orphan is
 * removed only when its config file and every subfile are the caller's:
 * regular files (not followed), owned by the effective uid, one link each
 * (h5sf_orphan_refusal); otherwise it is listed as not removed, and why.
 */
#ifndef H5SF_ORPHANS_H
#define H5SF_ORPHANS_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "errbuf.h"
#include "layout.h"

/* ---- names of a set (pure; fuzzed) ---------------------------------------- */

enum { H5SF_SETNAME_NONE = 0, H5SF_SETNAME_CONFIG = 1, H5SF_SETNAME_SUBFILE = 2 };

/* What directory entry `name` is to the set (base, inode): exactly
 * "<base>.subfile_<inode>.config" (H5SF_SETNAME_CONFIG), or
 * "<base>.subfile_<inode>_<k>_of_<N>" with 1 <= k <= N <=
 * H5SF_MAX_STRIPE_COUNT, k zero-padded to the width of N and N without
 * leading zeros, as layout.c writes them (H5SF_SETNAME_SUBFILE; *k and *n
 * set when not NULL); anything else is H5SF_SETNAME_NONE (another inode
 * that starts with the same digits, "<base>.subfile_<inode>_README.txt"). */
int h5sf_setname_match(const char *name, const char *base, uint64_t inode, int *k, int *n);

/* 1 if name is a config file's, "<base>.subfile_<N>.config" exactly (the
 * last ".subfile_"; base not empty; N without leading zeros), with N and
 * the length of base; 0 otherwise. */
int h5sf_setname_config(const char *name, uint64_t *inode, size_t *base_len);

/* ---- orphans ---------------------------------------------------------------- */

typedef struct h5sf_orphan {
    h5sf_layout_t layout;                              /* the set, as its config file describes it */
    char          config[2 * H5SF_LAYOUT_PATH_MAX];    /* its config file                         */
    char          stub[2 * H5SF_LAYOUT_PATH_MAX];      /* the stub the config file names          */
    char          why[128];                            /* "gone", "another file now (...)"       */
    char          keep[2 * H5SF_LAYOUT_PATH_MAX + 96]; /* why it is not removed ("" = it may be):
                                                          "owned by uid 1001 (config file /x/y)" */
    uint64_t      config_dev, config_ino;              /* the config file as read: remove refuses another */
} h5sf_orphan_t;

/* Call fn(o, arg) for every orphaned set whose config file is in
 * config_dir ("": the current directory), in name order; fn returns 0 to go
 * on, anything else to stop (returned).  With stub set (an absolute path,
 * as h5sf_layout_set_stub makes it), only the sets whose config file names
 * that stub; then a set of inode `replacing` (the stub a create just
 * truncated) counts too, whatever the stub's inode.  Config files that do
 * not parse are skipped.  o->keep is set for the orphans the caller may not
 * remove.  Returns 0, fn's value, or -1 (directory unreadable). */
int h5sf_orphans_scan(const char *config_dir, const char *stub, uint64_t replacing,
                      int (*fn)(const h5sf_orphan_t *o, void *arg), void *arg, h5sf_errbuf_t *e);

/* Remove the set's subfiles (those already gone are fine), then its config
 * file: 0.  1, with e saying why and nothing removed, when the set is not
 * the caller's to remove (o->keep, or so now: each file is checked again,
 * never followed); -1 with the first failure, what could be removed is. */
int h5sf_orphan_remove(const h5sf_orphan_t *o, h5sf_errbuf_t *e);

/* ---- the decision, without the file system (fuzzed) ------------------------ */

/* The set config file `name` (in directory cdir) describes, from its text
 * alone: o->config, o->stub (hdf5_file=, which must be absolute and end in
 * the name's <base>), o->layout (base and inode from the name, stub_dir
 * from hdf5_file=, the stripes and an absolute subfile_dir from the text).
 * 0, or -1 with e set. */
int h5sf_orphan_parse(const char *cdir, const char *name, const char *text, size_t len, h5sf_orphan_t *o,
                      h5sf_errbuf_t *e);

/* What the file system says about a parsed set (orphans.c gathers it). */
typedef struct h5sf_orphan_facts {
    int         stub_found;        /* o->stub names a file (stat(2), followed)           */
    uint64_t    stub_ino;          /* its inode                                          */
    int         inode_by_stub;     /* a file in stub_dir has the set's inode (lstat)     */
    int         inode_by_subfiles; /* one in subfile_dir, not the stub itself, has it    */
    struct stat config;            /* the config file as opened (no symlink, regular)    */
} h5sf_orphan_facts_t;

/* 1 if the parsed set o is an orphan (o->why says how; o->keep why uid
 * euid may not remove it, from its config file, or ""), 0 if it is alive
 * or not one the scan looks for (stub, replacing: as for the scan). */
int h5sf_orphan_judge(h5sf_orphan_t *o, const char *stub, uint64_t replacing, const h5sf_orphan_facts_t *f, uid_t euid);

/* Whether uid euid may remove the file st describes (lstat: never
 * followed): 0 if so; 1 if not, with why: "a symlink", "not a regular
 * file", "owned by uid N", "N links" (a hard link of a file elsewhere). */
int h5sf_orphan_refusal(const struct stat *st, uid_t euid, char *why, size_t n);

#endif
