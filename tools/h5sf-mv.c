/*
 * h5sf-mv -- move or copy a subfiled HDF5 file: stub, config file and
 * subfiles, renamed for the destination's name and stub inode.
 *
 *   h5sf-mv [options] SOURCE.h5 DEST.h5|DIR
 *
 * Every subfile name contains the stub's base name and inode number, and the
 * config file names the stub and the subfile directory, so a plain `mv` or
 * `cp` loses the subfiles.  This tool renames them (rename(2) where it can,
 * a hole-preserving copy across file systems) and writes a new config file.
 * The superblock is left alone: its driver info holds stripe size and count,
 * which do not change.  A move that fails half way is rolled back.
 *
 * SOURCE may be someone else's (docs/security.md): it must be an HDF5 file
 * (a signature where HDF5 looks), copies are made O_EXCL with mode 0666 &
 * ~umask masked by the source's (no setuid bit or wider access passes on),
 * and --force over a DEST that is a symlink replaces the link only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "toolkit.h"

/* What has been done, for the rollback. */
typedef struct {
    bool  stub_renamed, stub_copied, config_written;
    int   nsub;        /* subfiles moved/copied so far */
    bool *sub_renamed; /* per subfile: renamed (else copied) */
} undo_t;

static void rollback(const tk_set_t *src, const tk_set_t *dst, const char *src_stub, const char *dst_stub, undo_t *u)
{
    for (int s = u->nsub - 1; s >= 0; s--) {
        if (u->sub_renamed[s])
            rename(dst->path[s], src->path[s]);
        else
            unlink(dst->path[s]);
    }
    if (u->config_written)
        unlink(dst->config);
    if (u->stub_renamed)
        rename(dst_stub, src_stub);
    else if (u->stub_copied)
        unlink(dst_stub);
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: h5sf-mv [options] SOURCE.h5 DEST.h5\n"
                "       h5sf-mv [options] SOURCE.h5 DIRECTORY\n"
                "Move (or copy) a subfiled HDF5 file -- stub, config file, subfiles -- renaming\n"
                "the subfiles and config for the new name and stub inode, so the result opens\n"
                "with h5sf and with HDF5's built-in subfiling driver.\n\n"
                "  -C, --copy              copy; SOURCE stays as it is\n"
                "  -s, --subfile-dir DIR   directory for DEST's subfiles (default: DEST's directory)\n"
                "  -c, --config-dir DIR    directory of SOURCE's config file (default: $H5SF_CONFIG_DIR,\n"
                "                          $H5FD_SUBFILING_CONFIG_FILE_PREFIX, else the stub's)\n"
                "      --dest-config-dir DIR  directory for DEST's config file (default: as -c,\n"
                "                          which means DEST's directory when no directory is set)\n"
                "  -f, --force             replace an existing DEST (and its subfiles)\n"
                "  -q, --quiet             no summary\n"
                "  -h, --help              this text\n"
                "Exit status: 0 success, 1 failure (SOURCE untouched), 2 usage error.\n");
}

int main(int argc, char **argv)
{
    enum { OPT_DEST_CONFIG = 256 };
    static const struct option opts[] = {{"copy", no_argument, 0, 'C'},
                                         {"subfile-dir", required_argument, 0, 's'},
                                         {"config-dir", required_argument, 0, 'c'},
                                         {"dest-config-dir", required_argument, 0, OPT_DEST_CONFIG},
                                         {"force", no_argument, 0, 'f'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    bool                       copy = false, force = false, quiet = false;
    const char                *subfile_dir = NULL, *config_opt = NULL, *dest_config_opt = NULL;
    h5sf_errbuf_t              eb = {0};
    tk_set_t                   src, dst;
    undo_t                     u = {0};
    char                       dest[TK_PATH];
    int                        c, ret = 1;

    while ((c = getopt_long(argc, argv, "Cs:c:fqh", opts, NULL)) != -1) {
        switch (c) {
            case 'C': copy = true; break;
            case 's': subfile_dir = optarg; break;
            case 'c': config_opt = optarg; break;
            case OPT_DEST_CONFIG: dest_config_opt = optarg; break;
            case 'f': force = true; break;
            case 'q': quiet = true; break;
            case 'h': usage(stdout); return 0;
            default: usage(stderr); return 2;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "h5sf-mv: need SOURCE and DEST\n");
        usage(stderr);
        return 2;
    }
    const char *source = argv[optind];
    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);

    /* A move renames names: a link's would move without its target's stub. */
    struct stat ss, ds;
    if (!copy && lstat(source, &ss) == 0 && S_ISLNK(ss.st_mode)) {
        tk_print(stderr, "h5sf-mv: %s is a symbolic link; move its target, or copy with -C\n", source);
        goto done;
    }
    /* The source must be complete: moving half a file helps nobody. */
    if (tk_open(&src, source, tk_config_dir(config_opt), NULL, -1, &eb) < 0) {
        tk_print(stderr, "h5sf-mv: %s\n", eb.msg);
        goto done;
    }
    for (int s = 0; s < src.n; s++)
        if (src.size[s] < 0) {
            tk_print(stderr, "h5sf-mv: %s is damaged, nothing done: subfile %d of %d is %s: %s (see h5sf-info)\n",
                     source, s + 1, src.n, src.err[s] == ENOENT ? "missing" : h5sf_sysio_strerror(src.err[s]),
                     src.path[s]);
            goto done;
        }
    int sfd = tk_open_stub(source, O_RDONLY, &ss), sig = sfd < 0 ? -1 : tk_has_hdf5_signature(sfd, src.stub_size);
    if (sfd >= 0)
        close(sfd);
    if (sig <= 0) {
        tk_print(stderr, "h5sf-mv: %s %s; nothing done\n", source,
                 sig < 0 ? "cannot be read"
                         : "is not an HDF5 file (no HDF5 signature at offset 0, 512, 1024, ...), so not a stub");
        goto done;
    }

    /* Destination name. */
    if (stat(argv[optind + 1], &ds) == 0 && S_ISDIR(ds.st_mode)) {
        if (tk_join_basename(argv[optind + 1], source, dest, sizeof dest) < 0) {
            fprintf(stderr, "h5sf-mv: destination path too long\n");
            goto done;
        }
    }
    else
        snprintf(dest, sizeof dest, "%s", argv[optind + 1]);
    const char *dest_config_dir = dest_config_opt ? dest_config_opt : tk_config_dir(config_opt);
    if (tk_abs_dir(dest_config_dir, dst.l.config_dir, sizeof dst.l.config_dir, "config directory", &eb) < 0 ||
        tk_abs_dir(subfile_dir, dst.l.subfile_dir, sizeof dst.l.subfile_dir, "--subfile-dir", &eb) < 0) {
        tk_print(stderr, "h5sf-mv: %s\n", eb.msg);
        goto done;
    }

    if (lstat(dest, &ds) == 0) {
        if (!S_ISLNK(ds.st_mode) && ds.st_dev == ss.st_dev && ds.st_ino == ss.st_ino) {
            tk_print(stderr, "h5sf-mv: %s and %s are the same file\n", source, dest);
            goto done;
        }
        if (!force) {
            tk_print(stderr, "h5sf-mv: %s exists (use --force to replace it)\n", dest);
            goto done;
        }
        if (tk_remove_file("h5sf-mv", dest, dest_config_dir, &eb) < 0) {
            tk_print(stderr, "h5sf-mv: %s\n", eb.msg);
            goto done;
        }
    }

    /* The stub: rename keeps the inode; a copy (or another file system) gets a new one. */
    if (!copy && rename(source, dest) == 0)
        u.stub_renamed = true;
    else if (!copy && errno != EXDEV) {
        tk_print(stderr, "h5sf-mv: cannot move %s to %s: %s\n", source, dest, strerror(errno));
        goto done;
    }
    else if (tk_copy_file(source, true, dest, &eb) < 0) {
        tk_print(stderr, "h5sf-mv: %s\n", eb.msg);
        goto done;
    }
    else
        u.stub_copied = true;
    if (stat(dest, &ds) < 0 || h5sf_layout_set_stub(&dst.l, dest, &eb) < 0) {
        tk_print(stderr, "h5sf-mv: %s: %s\n", dest, eb.msg[0] ? eb.msg : strerror(errno));
        goto fail;
    }
    dst.l.inode        = (uint64_t)ds.st_ino;
    dst.l.stripe_size  = src.l.stripe_size;
    dst.l.stripe_count = src.l.stripe_count;
    dst.l.ioc_count    = src.l.ioc_count;
    if (tk_alloc(&dst, &eb) < 0 || !(u.sub_renamed = calloc((size_t)src.n, sizeof *u.sub_renamed))) {
        tk_print(stderr, "h5sf-mv: %s\n", eb.msg[0] ? eb.msg : "out of memory");
        goto fail;
    }
    if (strcmp(src.config, dst.config) == 0) {
        tk_print(stderr, "h5sf-mv: %s would keep the same names; nothing to do\n", dest);
        goto fail;
    }

    for (int s = 0; s < src.n; s++) {
        if (!copy && rename(src.path[s], dst.path[s]) == 0)
            u.sub_renamed[s] = true;
        else if (!copy && errno != EXDEV) {
            tk_print(stderr, "h5sf-mv: cannot move %s to %s: %s\n", src.path[s], dst.path[s], strerror(errno));
            goto fail;
        }
        else if (tk_copy_file(src.path[s], false, dst.path[s], &eb) < 0) {
            tk_print(stderr, "h5sf-mv: %s\n", eb.msg);
            goto fail;
        }
        u.nsub = s + 1;
    }
    if (h5sf_config_file_write(&dst.l, &eb) < 0) {
        tk_print(stderr, "h5sf-mv: %s\n", eb.msg);
        goto fail;
    }
    u.config_written = true;

    /* Done: a move removes what is left of the source. */
    if (!copy) {
        for (int s = 0; s < src.n; s++)
            if (!u.sub_renamed[s])
                tk_unlink_piece("h5sf-mv", src.path[s], src.stub_uid);
        tk_unlink_piece("h5sf-mv", src.config, src.stub_uid);
        if (u.stub_copied && unlink(source) < 0)
            tk_print(stderr, "h5sf-mv: warning: cannot remove %s: %s\n", source, strerror(errno));
    }
    if (!quiet)
        tk_print(stdout, "h5sf-mv: %s %s -> %s (%d subfiles, config %s)\n", copy ? "copied" : "moved", source, dest,
                 src.n, dst.config);
    ret = 0;
    goto done;
fail:
    rollback(&src, &dst, source, dest, &u);
done:
    free(u.sub_renamed);
    tk_close(&src);
    tk_close(&dst);
    return ret;
}
