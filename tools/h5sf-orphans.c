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
 * are never touched.
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
    int  found, removed, failed;
} run_t;

static int one(const h5sf_orphan_t *o, void *arg)
{
    run_t        *r  = arg;
    h5sf_errbuf_t eb = {0};
    r->found++;
    if (!r->quiet)
        printf("%s: %d subfile(s) in %s; stub %s: %s\n", o->config, o->layout.stripe_count,
               o->layout.subfile_dir[0] ? o->layout.subfile_dir : o->layout.stub_dir, o->stub, o->why);
    if (!r->remove)
        return 0;
    if (h5sf_orphan_remove(o, &eb) < 0) {
        fprintf(stderr, "h5sf-orphans: %s\n", eb.msg);
        r->failed++;
    }
    else
        r->removed++;
    return 0;
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: h5sf-orphans [options] [DIR...]\n"
                "List (with --remove, delete) the config files and subfiles of subfiled HDF5\n"
                "files whose stub is gone: removed alone (rm, remove(3)) or replaced by another\n"
                "file of the same name.  DIR: where the config files are (default:\n"
                "$H5SF_CONFIG_DIR, $H5FD_SUBFILING_CONFIG_FILE_PREFIX, else the current directory).\n\n"
                "  -r, --remove   delete each orphaned set: its subfiles, then its config file\n"
                "  -q, --quiet    no listing, no summary\n"
                "  -h, --help     this text\n"
                "A set is orphaned when the stub its config file names does not exist or has\n"
                "another inode, and no file in that stub's directory has the set's inode.\n"
                "Exit status: 0 success, 1 failure (a directory unreadable, a file not removed),\n"
                "2 usage error.\n");
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
            fprintf(stderr, "h5sf-orphans: %s\n", eb.msg);
            bad = 1;
        }
    }
    if (!r.quiet) {
        if (r.remove)
            printf("%d orphaned set(s) found, %d removed%s\n", r.found, r.removed, r.failed ? ", some failed" : "");
        else
            printf("%d orphaned set(s) found%s\n", r.found, r.found ? " (--remove deletes them)" : "");
    }
    return bad || r.failed ? 1 : 0;
}
