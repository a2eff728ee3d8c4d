/*
 * orphans.c -- find and remove the config files and subfiles of subfiled
 * files whose stub is gone (orphans.h says when a set is an orphan).
 *
 * Reads directories and config files, removes files; calls no MPI and no
 * HDF5.  Decides from what is on disk only: a set is removed when nothing
 * can reach it any more (its stub's name holds another file, or none, and
 * no file beside that name carries its inode), never on a guess about
 * files elsewhere.
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

#define CONFIG_TEXT_MAX 65536 /* a config file is a few hundred bytes */

/* N from "<base>.subfile_<N>.config"; base_len is where ".subfile_" starts.
 * 0 if the name is not a config file's. */
static int config_name(const char *name, uint64_t *inode, size_t *base_len)
{
    const char *p = strstr(name, ".subfile_"), *q;
    size_t      n = strlen(name);
    /* The last ".subfile_": a base may contain the string itself. */
    while (p && (q = strstr(p + 1, ".subfile_")) != NULL)
        p = q;
    if (!p || p == name || n < 7 || strcmp(name + n - 7, ".config") != 0)
        return 0;
    const char *d = p + 9, *end = name + n - 7;
    uint64_t    v = 0;
    if (d == end)
        return 0;
    for (; d < end; d++) {
        if (*d < '0' || *d > '9' || v > (UINT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (uint64_t)(*d - '0');
    }
    *inode    = v;
    *base_len = (size_t)(p - name);
    return 1;
}

/* The value of "hdf5_file=" in the config file at path, into out. */
static int config_stub(const char *path, char *out, size_t n)
{
    char    buf[CONFIG_TEXT_MAX];
    int     fd = h5sf_sysio_open(path, O_RDONLY, -1);
    ssize_t got;
    if (fd < 0)
        return -1;
    got = h5sf_sysio_read(fd, buf, sizeof buf - 1);
    h5sf_sysio_close(fd);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, "hdf5_file=", 10)) {
            size_t len = strcspn(line + 10, "\r\n");
            if (len == 0 || len >= n)
                return -1;
            memcpy(out, line + 10, len);
            out[len] = '\0';
            return 0;
        }
    return -1;
}

/* 1 if a file in dir has inode ino (a stub renamed there keeps it); by
 * fstatat, as the driver takes inodes, not d_ino (overlay file systems
 * may differ). */
static int inode_in_dir(const char *dir, uint64_t ino)
{
    DIR           *dp = h5sf_sysio_opendir(dir);
    struct dirent *de;
    struct stat    st;
    int            found = 0;
    if (!dp)
        return 0;
    while (!found && (de = h5sf_sysio_readdir(dp)))
        found = h5sf_sysio_fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (uint64_t)st.st_ino == ino;
    h5sf_sysio_closedir(dp);
    return found;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Whether the set of config file `name` in cdir is an orphan; fills *o. */
static int classify(const char *cdir, const char *name, uint64_t inode, size_t base_len, const char *stub,
                    uint64_t replacing, h5sf_orphan_t *o)
{
    h5sf_errbuf_t e = {0};
    struct stat   st;
    memset(o, 0, sizeof *o);
    if (snprintf(o->config, sizeof o->config, "%s/%s", cdir, name) >= (int)sizeof o->config ||
        config_stub(o->config, o->stub, sizeof o->stub) < 0)
        return 0;
    if (stub && strcmp(o->stub, stub) != 0)
        return 0;
    /* The layout the config file describes, as the driver would find it. */
    if (h5sf_layout_set_stub(&o->layout, o->stub, &e) < 0 || strlen(o->layout.base) != base_len ||
        strncmp(o->layout.base, name, base_len) != 0)
        return 0;
    o->layout.inode = inode;
    snprintf(o->layout.config_dir, sizeof o->layout.config_dir, "%s", cdir);
    if (h5sf_config_file_read(&o->layout, &e) < 0)
        return 0;
    if (stub && inode == replacing) {
        snprintf(o->why, sizeof o->why, "replaced by a new file of that name");
        return 1;
    }
    if (h5sf_sysio_stat(o->stub, &st) == 0 && (uint64_t)st.st_ino == inode)
        return 0; /* alive */
    if (inode_in_dir(o->layout.stub_dir, inode))
        return 0; /* its stub renamed in its directory */
    if (h5sf_sysio_stat(o->stub, &st) == 0)
        snprintf(o->why, sizeof o->why, "another file now (inode %" PRIu64 ", not %" PRIu64 ")", (uint64_t)st.st_ino,
                 inode);
    else
        snprintf(o->why, sizeof o->why, "gone");
    return 1;
}

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
        if (!config_name(de->d_name, &ino, &bl) || (want && (strlen(want) != bl || strncmp(de->d_name, want, bl))))
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
    for (size_t i = 0; i < n && ret == 0; i++) {
        uint64_t ino;
        size_t   bl;
        config_name(names[i], &ino, &bl);
        if (classify(cdir, names[i], ino, bl, stub, replacing, o))
            ret = fn(o, arg);
    }
done:
    h5sf_sysio_closedir(dp);
    for (size_t i = 0; i < n; i++)
        h5sf_free(names[i]);
    h5sf_free(names);
    h5sf_free(o);
    return ret;
}

int h5sf_orphan_remove(const h5sf_orphan_t *o, h5sf_errbuf_t *e)
{
    char path[2 * H5SF_LAYOUT_PATH_MAX];
    int  ret = 0;
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
