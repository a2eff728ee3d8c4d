/*
 * orphans.c -- find and remove the config files and subfiles of subfiled
 * files whose stub is gone (orphans.h says when a set is an orphan), and
 * tell which names in a directory are a set's.
 *
 * Reads directories and config files, removes files; calls no MPI and no
 * HDF5.  Decides from what is on disk only: a set is removed when nothing
 * can reach it any more (its stub's name holds another file, or none, and
 * no file beside that name or beside its subfiles carries its inode),
 * never on a guess about files elsewhere.  A config file is anyone's
 * writing, so it is removed, with its subfiles, only when all of them are
 * the caller's own regular files (h5sf_orphan_refusal): a config file
 * another user planted never makes the caller delete anything.  The
 * decision (parse, judge, refusal) is pure, for the fuzzer; classify()
 * gathers what it needs from the file system.
 */
#define _XOPEN_SOURCE 700
#include "orphans.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "alloc.h"
#include "sysio.h"

#define CONFIG_TEXT_MAX ((size_t)256 << 20) /* as layout.c: 65536 names of ~4 KiB fit */

/* ---- names ------------------------------------------------------------------ */


/* The number s[0..len) spells exactly as printf("%" PRIu64) would (no sign,
 * no leading zero, no overflow): 1 with *v, else 0. */
static int exact_number(const char *s, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    if (len == 0 || (len > 1 && s[0] == '0'))
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return 0;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *v = x;
    return 1;
}

int h5sf_setname_match(const char *name, const char *base, uint64_t inode, int *k, int *n)
{
    static const char tag[] = ".subfile_";
    size_t            bl = strlen(base), nl = strlen(name), il = (size_t)h5sf_digits(inode);
    char              ino[24];
    if (bl == 0 || nl < bl + sizeof tag - 1 + il || memcmp(name, base, bl) != 0 ||
        memcmp(name + bl, tag, sizeof tag - 1) != 0)
        return H5SF_SETNAME_NONE;
    snprintf(ino, sizeof ino, "%" PRIu64, inode);
    const char *p = name + bl + sizeof tag - 1, *end = name + nl;
    if (memcmp(p, ino, il) != 0)
        return H5SF_SETNAME_NONE;
    p += il;
    if (strcmp(p, ".config") == 0)
        return H5SF_SETNAME_CONFIG;
    /* "_<k>_of_<N>": k exactly as wide as N, 1 <= k <= N. */
    const char *of = p[0] == '_' ? strstr(p + 1, "_of_") : NULL;
    uint64_t    kv, nv;
    if (!of || !exact_number(of + 4, (size_t)(end - of - 4), &nv) || nv < 1 || nv > H5SF_MAX_STRIPE_COUNT)
        return H5SF_SETNAME_NONE;
    size_t kl = (size_t)(of - p - 1);
    if (kl != (size_t)h5sf_digits(nv))
        return H5SF_SETNAME_NONE;
    kv = 0;
    for (size_t i = 0; i < kl; i++) {
        if (p[1 + i] < '0' || p[1 + i] > '9')
            return H5SF_SETNAME_NONE;
        kv = kv * 10 + (uint64_t)(p[1 + i] - '0');
    }
    if (kv < 1 || kv > nv)
        return H5SF_SETNAME_NONE;
    if (k)
        *k = (int)kv;
    if (n)
        *n = (int)nv;
    return H5SF_SETNAME_SUBFILE;
}

int h5sf_setname_config(const char *name, uint64_t *inode, size_t *base_len)
{
    static const char tag[] = ".subfile_";
    size_t            n     = strlen(name);
    const char       *p = NULL, *q = name;
    /* The last ".subfile_": a base may contain the string itself. */
    while ((q = strstr(q, tag)) != NULL)
        p = q++;
    if (!p || p == name || n < 7 || strcmp(name + n - 7, ".config") != 0 || name + n - 7 < p + sizeof tag - 1 ||
        !exact_number(p + sizeof tag - 1, (size_t)(name + n - 7 - (p + sizeof tag - 1)), inode))
        return 0;
    *base_len = (size_t)(p - name);
    return 1;
}

/* ---- the decision (pure) ------------------------------------------------------ */

/* The value of the first "hdf5_file=" line of text[0..len), into out. */
static int config_stub(const char *text, size_t len, char *out, size_t n)
{
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t      ll = nl ? (size_t)(nl - line) : len - pos;
        pos += ll + (nl ? 1 : 0);
        if (ll > 0 && line[ll - 1] == '\r')
            ll--;
        if (ll >= 10 && memcmp(line, "hdf5_file=", 10) == 0) {
            if (ll == 10 || ll - 10 >= n || memchr(line + 10, '\0', ll - 10))
                return -1;
            memcpy(out, line + 10, ll - 10);
            out[ll - 10] = '\0';
            return 0;
        }
    }
    return -1;
}

int h5sf_orphan_parse(const char *cdir, const char *name, const char *text, size_t len, h5sf_orphan_t *o,
                      h5sf_errbuf_t *e)
{
    h5sf_layout_t *l = &o->layout;
    uint64_t       inode;
    size_t         bl;
    memset(o, 0, sizeof *o);
    if (!h5sf_setname_config(name, &inode, &bl))
        return h5sf_fail(e, EINVAL, "%.200s is not the name of a config file", name);
    if (snprintf(o->config, sizeof o->config, "%s/%s", cdir, name) >= (int)sizeof o->config ||
        strlen(cdir) >= sizeof l->config_dir)
        return h5sf_fail(e, ENAMETOOLONG, "config file %.200s/%.200s: path too long", cdir, name);
    if (config_stub(text, len, o->stub, sizeof o->stub) < 0)
        return h5sf_fail(e, EINVAL, "config file %s: no usable hdf5_file= line", o->config);
    /* hdf5_file= as the drivers write it: absolute, resolved, ending in the
     * name's <base>.  Taken as written: resolving it would follow names
     * others may have planted. */
    const char *slash = strrchr(o->stub, '/');
    size_t      dl    = slash ? (size_t)(slash - o->stub) : 0;
    if (o->stub[0] != '/' || strlen(slash + 1) != bl || memcmp(slash + 1, name, bl) != 0 || bl >= sizeof l->base ||
        dl >= sizeof l->stub_dir)
        return h5sf_fail(e, EINVAL, "config file %s: hdf5_file= is not an absolute path ending in %.*s", o->config,
                         (int)bl, name);
    memcpy(l->base, name, bl);
    snprintf(l->stub_dir, sizeof l->stub_dir, "%.*s", (int)(dl ? dl : 1), dl ? o->stub : "/");
    snprintf(l->config_dir, sizeof l->config_dir, "%s", cdir);
    l->inode = inode;
    if (h5sf_config_file_parse(text, len, l, e) < 0)
        return -1;
    /* A relative subfile_dir means the stub's directory (as layout.c). */
    const char *d = l->subfile_dir;
    if (d[0] && d[0] != '/') {
        char   rel[H5SF_LAYOUT_PATH_MAX];
        int    dot = strcmp(d, ".") == 0;
        size_t w   = (size_t)snprintf(rel, sizeof rel, "%s%s%s", l->stub_dir,
                                    dot                        ? ""
                                      : strcmp(l->stub_dir, "/") ? "/"
                                                                 : "",
                                    dot ? "" : d);
        if (w >= sizeof rel)
            return h5sf_fail(e, ENAMETOOLONG, "config file %s: subfile_dir too long", o->config);
        memcpy(l->subfile_dir, rel, w + 1);
    }
    return 0;
}

int h5sf_orphan_refusal(const struct stat *st, uid_t euid, char *why, size_t n)
{
    if (S_ISLNK(st->st_mode))
        snprintf(why, n, "a symlink");
    else if (!S_ISREG(st->st_mode))
        snprintf(why, n, "not a regular file");
    else if (st->st_uid != euid)
        snprintf(why, n, "owned by uid %lu", (unsigned long)st->st_uid);
    else if (st->st_nlink != 1)
        snprintf(why, n, "%lu links", (unsigned long)st->st_nlink);
    else {
        if (n)
            why[0] = '\0';
        return 0;
    }
    return 1;
}

int h5sf_orphan_judge(h5sf_orphan_t *o, const char *stub, uint64_t replacing, const h5sf_orphan_facts_t *f, uid_t euid)
{
    const uint64_t inode = o->layout.inode;
    char           why[64];
    if (stub && strcmp(o->stub, stub) != 0)
        return 0;
    /* A file with the set's inode beside its subfiles: a live stub (moved
     * there, or another's whose subfiles these are). */
    if (f->inode_by_subfiles)
        return 0;
    if (stub && inode == replacing)
        snprintf(o->why, sizeof o->why, "replaced by a new file of that name");
    else if ((f->stub_found && f->stub_ino == inode) || f->inode_by_stub)
        return 0; /* alive, or its stub renamed in its directory */
    else if (f->stub_found)
        snprintf(o->why, sizeof o->why, "another file now (inode %" PRIu64 ", not %" PRIu64 ")", f->stub_ino, inode);
    else
        snprintf(o->why, sizeof o->why, "gone");
    o->keep[0] = '\0';
    if (h5sf_orphan_refusal(&f->config, euid, why, sizeof why))
        snprintf(o->keep, sizeof o->keep, "%s (config file %s)", why, o->config);
    return 1;
}

/* ---- the file system ---------------------------------------------------------- */

/* 1 if a file in dir other than `except` (dev and inode; NULL: none) has
 * inode ino (a stub renamed there keeps it); by fstatat, as the driver
 * takes inodes, not d_ino (overlay file systems may differ). */
static int inode_in_dir(const char *dir, uint64_t ino, const struct stat *except)
{
    DIR           *dp = h5sf_sysio_opendir(dir);
    struct dirent *de;
    struct stat    st;
    int            found = 0;
    if (!dp)
        return 0;
    while (!found && (de = h5sf_sysio_readdir(dp)))
        found = h5sf_sysio_fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                (uint64_t)st.st_ino == ino && !(except && st.st_dev == except->st_dev && st.st_ino == except->st_ino);
    h5sf_sysio_closedir(dp);
    return found;
}

/* The text of the config file at path, opened without following a link
 * and only if regular (h5sf_sysio_open); its fstat into st.  Freed by the
 * caller; NULL if unreadable. */
static char *read_config(const char *path, struct stat *st, size_t *len)
{
    int   fd   = h5sf_sysio_open(path, O_RDONLY, -1);
    char *text = NULL;
    *len       = 0;
    if (fd < 0)
        return NULL;
    if (h5sf_sysio_fstat(fd, st) == 0 && (uint64_t)st->st_size <= CONFIG_TEXT_MAX &&
        (text = h5sf_malloc((size_t)st->st_size + 1)) != NULL) {
        while (*len < (size_t)st->st_size) {
            ssize_t r = h5sf_sysio_read(fd, text + *len, (size_t)st->st_size - *len);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break; /* shrank meanwhile: parse what is there */
            *len += (size_t)r;
        }
    }
    h5sf_sysio_close(fd);
    return text;
}

/* "" if every subfile of o that exists may be removed by the caller, else
 * why not, into why. -1 if one cannot be looked at (errno set). */
static int check_subfiles(const h5sf_orphan_t *o, char *why, size_t n)
{
    char        path[2 * H5SF_LAYOUT_PATH_MAX], r[64];
    struct stat st;
    why[0] = '\0';
    for (int s = 0; s < o->layout.stripe_count; s++) {
        h5sf_errbuf_t pe = {0};
        if (h5sf_subfile_path(&o->layout, s, path, sizeof path, &pe) < 0) {
            snprintf(why, n, "%s", pe.msg);
            return 0;
        }
        const char *slash = strrchr(path, '/');
        if (h5sf_setname_match(slash ? slash + 1 : path, o->layout.base, o->layout.inode, NULL, NULL) !=
            H5SF_SETNAME_SUBFILE) {
            snprintf(why, n, "subfile %s is not named for its set", path);
            return 0;
        }
        if (h5sf_sysio_fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            if (errno == ENOENT)
                continue;
            return -1;
        }
        if (h5sf_orphan_refusal(&st, geteuid(), r, sizeof r)) {
            snprintf(why, n, "%s (subfile %s)", r, path);
            return 0;
        }
    }
    return 0;
}

/* Whether the set of config file `name` in cdir is an orphan; fills *o. */
static int classify(const char *cdir, const char *name, const char *stub, uint64_t replacing, h5sf_orphan_t *o)
{
    h5sf_orphan_facts_t f;
    struct stat         stub_st;
    char                path[2 * H5SF_LAYOUT_PATH_MAX];
    size_t              len;
    char               *text;
    int                 parsed;
    memset(&f, 0, sizeof f);
    if (snprintf(path, sizeof path, "%s/%s", cdir, name) >= (int)sizeof path ||
        !(text = read_config(path, &f.config, &len)))
        return 0;
    parsed = h5sf_orphan_parse(cdir, name, text, len, o, NULL) == 0;
    h5sf_free(text);
    if (!parsed || (stub && strcmp(o->stub, stub) != 0))
        return 0;
    const h5sf_layout_t *l        = &o->layout;
    const char          *sdir     = l->subfile_dir[0] ? l->subfile_dir : l->stub_dir;
    const int            replaced = stub && l->inode == replacing;
    o->config_dev                 = (uint64_t)f.config.st_dev;
    o->config_ino                 = (uint64_t)f.config.st_ino;
    if (h5sf_sysio_stat(o->stub, &stub_st) == 0) {
        f.stub_found = 1;
        f.stub_ino   = (uint64_t)stub_st.st_ino;
    }
    if (!replaced && f.stub_found && f.stub_ino == l->inode)
        return 0; /* alive: no directory to read */
    if (!replaced)
        f.inode_by_stub = inode_in_dir(l->stub_dir, l->inode, NULL);
    if (!f.inode_by_stub && strcmp(sdir, l->stub_dir) != 0)
        f.inode_by_subfiles = inode_in_dir(sdir, l->inode, f.stub_found ? &stub_st : NULL);
    if (!h5sf_orphan_judge(o, stub, replacing, &f, geteuid()))
        return 0;
    if (!o->keep[0] && check_subfiles(o, o->keep, sizeof o->keep) < 0)
        snprintf(o->keep, sizeof o->keep, "cannot look at its subfiles in %s: %s", sdir, strerror(errno));
    return 1;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int h5sf_orphans_scan(const char *config_dir, const char *stub, uint64_t replacing,
                      int (*fn)(const h5sf_orphan_t *o, void *arg), void *arg, h5sf_errbuf_t *e)
{
    const char    *cdir  = config_dir && *config_dir ? config_dir : ".";
    char         **names = NULL;
    size_t         n = 0, cap = 0;
    int            ret = 0;
    DIR           *dp  = h5sf_sysio_opendir(cdir);
    struct dirent *de;
    h5sf_orphan_t *o = NULL;

    /* A create looks for its own name's sets only: the others' config
     * files are not even read. */
    const char *want = stub ? strrchr(stub, '/') : NULL;
    want             = want ? want + 1 : stub;
    if (!dp)
        return h5sf_fail(e, errno, "cannot read directory %s: %s", cdir, strerror(errno));
    while ((de = h5sf_sysio_readdir(dp))) {
        uint64_t ino;
        size_t   bl;
        if (!h5sf_setname_config(de->d_name, &ino, &bl) ||
            (want && (strlen(want) != bl || strncmp(de->d_name, want, bl))))
            continue;
        if (n == cap) {
            char **p = h5sf_realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *p);
            if (!p) {
                ret = h5sf_fail(e, ENOMEM, "out of memory");
                goto done;
            }
            names = p;
        }
        if (!(names[n] = h5sf_strdup(de->d_name))) {
            ret = h5sf_fail(e, ENOMEM, "out of memory");
            goto done;
        }
        n++;
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    if (!(o = h5sf_malloc(sizeof *o))) {
        ret = h5sf_fail(e, ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n && ret == 0; i++)
        if (classify(cdir, names[i], stub, replacing, o))
            ret = fn(o, arg);
done:
    h5sf_sysio_closedir(dp);
    for (size_t i = 0; i < n; i++)
        h5sf_free(names[i]);
    h5sf_free(names);
    h5sf_free(o);
    return ret;
}

/* 1 (e says why) unless the set is still the caller's to remove: its
 * config file the one classified, and every subfile the caller's. */
static int still_removable(const h5sf_orphan_t *o, h5sf_errbuf_t *e)
{
    struct stat st;
    char        why[sizeof o->keep];
    if (o->keep[0])
        snprintf(why, sizeof why, "%s", o->keep);
    else if (h5sf_sysio_fstatat(AT_FDCWD, o->config, &st, AT_SYMLINK_NOFOLLOW) < 0)
        snprintf(why, sizeof why, "cannot look at config file %s: %s", o->config, strerror(errno));
    else if (h5sf_orphan_refusal(&st, geteuid(), why, sizeof why)) {
        size_t w = strlen(why);
        snprintf(why + w, sizeof why - w, " (config file %s)", o->config);
    }
    else if ((uint64_t)st.st_dev != o->config_dev || (uint64_t)st.st_ino != o->config_ino)
        snprintf(why, sizeof why, "config file %s was replaced meanwhile", o->config);
    else if (check_subfiles(o, why, sizeof why) < 0)
        snprintf(why, sizeof why, "cannot look at the subfiles of %s: %s", o->config, strerror(errno));
    if (!why[0])
        return 0;
    h5sf_fail(e, 0, "%s", why);
    return 1;
}

int h5sf_orphan_remove(const h5sf_orphan_t *o, h5sf_errbuf_t *e)
{
    char path[2 * H5SF_LAYOUT_PATH_MAX];
    int  ret = 0;
    if (still_removable(o, e))
        return 1;
    for (int s = 0; s < o->layout.stripe_count; s++) {
        h5sf_errbuf_t pe = {0};
        if (h5sf_subfile_path(&o->layout, s, path, sizeof path, &pe) < 0) {
            if (ret == 0)
                ret = h5sf_fail(e, pe.err_no, "%s", pe.msg);
        }
        else if (h5sf_sysio_unlink(path) < 0 && errno != ENOENT && ret == 0)
            ret = h5sf_fail(e, errno, "cannot remove subfile %s: %s", path, strerror(errno));
    }
    if (ret == 0 && h5sf_sysio_unlink(o->config) < 0 && errno != ENOENT)
        ret = h5sf_fail(e, errno, "cannot remove config file %s: %s", o->config, strerror(errno));
    return ret;
}
