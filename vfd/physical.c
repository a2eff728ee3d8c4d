/*
 * physical.c -- H5FD_h5sf_get_files(): the physical files behind a subfiled
 * file (a plain HDF5 file, which opens through h5sf as one, is its one
 * file: open and delete tell them apart alike, h5sf_layout_load), for
 * backup and staging scripts.  Serial; no MPI, no open file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

H5SF_API void H5FD_h5sf_free_files(char **files, size_t count)
{
    if (!files)
        return;
    for (size_t i = 0; i < count; i++)
        h5sf_free(files[i]);
    h5sf_free(files);
}

H5SF_API herr_t H5FD_h5sf_get_files(const char *path, const char *config_dir, char ***files_out, size_t *count_out)
{
    h5sf_layout_t *l         = NULL;
    h5sf_errbuf_t  eb        = {0};
    char         **files     = NULL;
    size_t         n         = 0;
    herr_t         ret_value = 0;
    int            fd        = -1, kind;
    char           buf[2 * H5SF_LAYOUT_PATH_MAX];
    struct stat    st;

    if (!path || !files_out || !count_out)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "NULL argument");
    if (!(l = h5sf_calloc(1, sizeof *l)))
        H5SF_GOTO(-1, H5E_RESOURCE, H5E_NOSPACE, "out of memory");
    if (h5sf_layout_set_stub(l, path, &eb) < 0 || h5sf_stub_path(l, buf, sizeof buf, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_VFL, H5E_BADVALUE, &eb);
    /* The stub as open finds it: a symlink resolved on purpose. */
    if ((fd = h5sf_sysio_open(buf, O_RDONLY, -1)) < 0 || h5sf_sysio_fstat(fd, &st) < 0)
        H5SF_GOTO(-1, H5E_FILE, H5E_NOTFOUND, "cannot open %s: %s", path, h5sf_sysio_strerror(errno));
    l->inode = (uint64_t)st.st_ino;
    if (config_dir)
        snprintf(l->config_dir, sizeof l->config_dir, "%s", config_dir);
    /* A plain HDF5 file (opens through h5sf as one) is its one file. */
    if ((kind = h5sf_layout_load(l, fd, path, &eb)) < 0)
        H5SF_GOTO_EB(-1, H5E_VFL, H5E_CANTOPENFILE, &eb);
    if (!(files = h5sf_calloc((size_t)l->stripe_count + 2, sizeof *files)))
        H5SF_GOTO(-1, H5E_RESOURCE, H5E_NOSPACE, "out of memory");
    if (!(files[n++] = h5sf_strdup(path)))
        H5SF_GOTO(-1, H5E_RESOURCE, H5E_NOSPACE, "out of memory");
    if (kind == 1)
        goto listed;
    if (h5sf_config_path(l, buf, sizeof buf, &eb) < 0 || !(files[n++] = h5sf_strdup(buf)))
        H5SF_GOTO(-1, H5E_RESOURCE, H5E_NOSPACE, "config path: %s", eb.msg);
    for (int s = 0; s < l->stripe_count; s++)
        if (h5sf_subfile_path(l, s, buf, sizeof buf, &eb) < 0 || !(files[n++] = h5sf_strdup(buf)))
            H5SF_GOTO(-1, H5E_RESOURCE, H5E_NOSPACE, "subfile path: %s", eb.msg);
listed:
    *files_out = files;
    *count_out = n;
    files      = NULL;
done:
    if (fd >= 0)
        h5sf_sysio_close(fd);
    H5FD_h5sf_free_files(files, n);
    h5sf_free(l);
    return ret_value;
}
