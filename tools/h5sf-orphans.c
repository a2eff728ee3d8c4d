/*
 * h5sf-orphans -- find, and with --remove delete, the config files and
 * subfiles of subfiled files whose stub is gone.
 *
 *   h5sf-orphans [options] [DIR...]
 *
 * A program that removes a subfiled file with remove(3) or rm (netCDF's
 * abort path does) takes only the stub; the config file and the subfiles,
 * named for the stub's inode, stay.  This tool looks at the config files
 * in each DIR (default: $H5SF_CONFIG_DIR, else $H5FD_SUBFILING_CONFIG_FILE_PREFIX,
 * else the current directory) and reports each set whose stub no longer
 * exists, or is another file now (another inode), and whose inode no file
 * beside the stub's name has (common/orphans.c).  It only lists unless
 * --remove.  Live files, and stubs renamed with mv in their directory,
 * are never touched; nor is a set that is not the caller's own (a config
 * file or subfile of another owner, a symlink, a hard link): such a set is
 * listed as not removed, and why.  Everything printed from a config file
 * or a directory is escaped (esc()): a planted name or subfile_dir= cannot
 * drive the terminal.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "orphans.h"
#include "toolkit.h"

typedef struct run {
    bool remove, quiet;
    int  found, removed, kept, failed;
} run_t;

/* s for a terminal: valid UTF-8 without control characters (C0, DEL, and
 * C1 as U+0080..U+009F); every other byte, and '\\', as \xHH. */
static void esc(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n  = *p < 0x80                  ? 1
                    : *p >= 0xc2 && *p <= 0xdf ? 2
                    : *p >= 0xe0 && *p <= 0xef ? 3
                    : *p >= 0xf0 && *p <= 0xf4 ? 4
                                               : 0;
        size_t ok = n;
        for (size_t i = 1; i < n && ok; i++)
            if ((p[i] & 0xc0) != 0x80)
                ok = 0;
        if (n == 1 && (*p < 0x20 || *p == 0x7f || *p == '\\'))
            ok = 0;
        if (n == 2 && ok && *p == 0xc2 && p[1] < 0xa0) /* C1 controls: CSI is U+009B */
            ok = 0;
        if (ok) {
            fwrite(p, 1, ok, fp);
            p += ok;
        }
        else
            fprintf(fp, "\\x%02x", *p++);
    }
}

static int one(const h5sf_orphan_t *o, void *arg)
{
    run_t        *r  = arg;
    h5sf_errbuf_t eb = {0};
    int           rc = 1;
    r->found++;
    if (r->remove && (rc = h5sf_orphan_remove(o, &eb)) == 0)
        r->removed++;
    else if (rc < 0)
        r->failed++;
    else if (r->remove || o->keep[0])
        r->kept++;
    if (!r->quiet) {
        esc(stdout, o->config);
        printf(": %d subfile(s) in ", o->layout.stripe_count);
        esc(stdout, o->layout.subfile_dir[0] ? o->layout.subfile_dir : o->layout.stub_dir);
        printf("; stub ");
        esc(stdout, o->stub);
        printf(": %s", o->why);
        if (rc == 1 && (r->remove || o->keep[0])) {
            printf("; not removed: ");
            esc(stdout, r->remove ? eb.msg : o->keep);
        }
        printf("\n");
    }
    if (rc < 0) {
        fprintf(stderr, "h5sf-orphans: ");
        esc(stderr, eb.msg);
        fprintf(stderr, "\n");
    }
    return 0;
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: h5sf-orphans [options] [DIR...]\n"
                "List (with --remove, delete) the config files and subfiles of subfiled HDF5\n"
                "files whose stub is gone: removed alone (rm, remove(3)) or replaced by another\n"
                "file of the same name.  DIR: where the config files are (default:\n"
                "$H5SF_CONFIG_DIR, $H5FD_SUBFILING_CONFIG_FILE_PREFIX, else the current directory).\n\n"
                "  -r, --remove   delete each orphaned set: its subfiles, then its config file;\n"
                "                 only sets whose config file and subfiles are all the caller's\n"
                "                 own regular files (not symlinks, one link each): the others\n"
                "                 are listed as not removed, with the reason\n"
                "  -q, --quiet    no listing, no summary\n"
                "  -h, --help     this text\n"
                "A set is orphaned when the stub its config file names does not exist or has\n"
                "another inode, and no file in that stub's directory has the set's inode.\n"
                "Exit status: 0 success, 1 failure (a directory unreadable, a file of the\n"
                "caller's that could not be removed), 2 usage error; a set not the caller's to\n"
                "remove is no failure.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"remove", no_argument, 0, 'r'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    run_t r = {0};
    int   c, bad = 0;

    while ((c = getopt_long(argc, argv, "rqh", opts, NULL)) != -1) {
        switch (c) {
            case 'r': r.remove = true; break;
            case 'q': r.quiet = true; break;
            case 'h': usage(stdout); return 0;
            default: usage(stderr); return 2;
        }
    }
    const char  *dflt           = tk_config_dir(NULL);
    const char  *dirs_default[] = {dflt && *dflt ? dflt : "."};
    const char **dirs           = optind < argc ? (const char **)argv + optind : dirs_default;
    int          ndir           = optind < argc ? argc - optind : 1;
    for (int i = 0; i < ndir; i++) {
        h5sf_errbuf_t eb = {0};
        if (h5sf_orphans_scan(dirs[i], NULL, 0, one, &r, &eb) < 0) {
            fprintf(stderr, "h5sf-orphans: ");
            esc(stderr, eb.msg);
            fprintf(stderr, "\n");
            bad = 1;
        }
    }
    if (!r.quiet) {
        if (r.remove)
            printf("%d orphaned set(s) found, %d removed%s", r.found, r.removed, r.failed ? ", some failed" : "");
        else
            printf("%d orphaned set(s) found%s", r.found, r.found > r.kept ? " (--remove deletes them)" : "");
        if (r.kept)
            printf(", %d not removed (not the caller's own, see above)", r.kept);
        printf("\n");
    }
    return bad || r.failed ? 1 : 0;
}
