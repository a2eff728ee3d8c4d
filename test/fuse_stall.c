/*
 * fuse_stall.c -- a passthrough FUSE file system whose writes stall on
 * demand, as a file system that stops answering does, without touching
 * h5sf (no fault injection).
 *
 *   fuse_stall BACKING TRIGGER MOUNTPOINT [fuse options]
 *
 * Every file operation under MOUNTPOINT is done on BACKING.  While the file
 * TRIGGER exists, write, fsync and truncate block (checked every 10 ms)
 * until it is removed; other operations go on (the daemon is
 * multi-threaded).  Used by t_ownstall_fuse.sh.
 */
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char backing[PATH_MAX], trigger[PATH_MAX];

/* The backing path of p (p starts with '/'). */
static void real(const char *p, char *out) { snprintf(out, PATH_MAX, "%s%s", backing, p); }

/* Block while the trigger file exists. */
static void stall(void)
{
    struct timespec ts = {0, 10 * 1000000L};
    while (access(trigger, F_OK) == 0)
        nanosleep(&ts, NULL);
}

static int fs_getattr(const char *p, struct stat *st, struct fuse_file_info *fi)
{
    char r[PATH_MAX];
    if (fi)
        return fstat((int)fi->fh, st) < 0 ? -errno : 0;
    real(p, r);
    return lstat(r, st) < 0 ? -errno : 0;
}

static int fs_readdir(const char *p, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags fl)
{
    char           r[PATH_MAX];
    DIR           *d;
    struct dirent *de;
    (void)off, (void)fi, (void)fl;
    real(p, r);
    if (!(d = opendir(r)))
        return -errno;
    while ((de = readdir(d)))
        fill(buf, de->d_name, NULL, 0, 0);
    closedir(d);
    return 0;
}

static int fs_open(const char *p, struct fuse_file_info *fi)
{
    char r[PATH_MAX];
    real(p, r);
    int fd = open(r, fi->flags);
    if (fd < 0)
        return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int fs_create(const char *p, mode_t mode, struct fuse_file_info *fi)
{
    char r[PATH_MAX];
    real(p, r);
    int fd = open(r, fi->flags | O_CREAT, mode);
    if (fd < 0)
        return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int fs_read(const char *p, char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
    (void)p;
    ssize_t k = pread((int)fi->fh, buf, n, off);
    return k < 0 ? -errno : (int)k;
}

static int fs_write(const char *p, const char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
    (void)p;
    stall();
    ssize_t k = pwrite((int)fi->fh, buf, n, off);
    return k < 0 ? -errno : (int)k;
}

static int fs_fsync(const char *p, int datasync, struct fuse_file_info *fi)
{
    (void)p, (void)datasync;
    stall();
    return fsync((int)fi->fh) < 0 ? -errno : 0;
}

static int fs_truncate(const char *p, off_t size, struct fuse_file_info *fi)
{
    char r[PATH_MAX];
    stall();
    if (fi)
        return ftruncate((int)fi->fh, size) < 0 ? -errno : 0;
    real(p, r);
    return truncate(r, size) < 0 ? -errno : 0;
}

static int fs_release(const char *p, struct fuse_file_info *fi)
{
    (void)p;
    close((int)fi->fh);
    return 0;
}

static int fs_unlink(const char *p)
{
    char r[PATH_MAX];
    real(p, r);
    return unlink(r) < 0 ? -errno : 0;
}

static int fs_mkdir(const char *p, mode_t mode)
{
    char r[PATH_MAX];
    real(p, r);
    return mkdir(r, mode) < 0 ? -errno : 0;
}

static int fs_rmdir(const char *p)
{
    char r[PATH_MAX];
    real(p, r);
    return rmdir(r) < 0 ? -errno : 0;
}

static int fs_rename(const char *a, const char *b, unsigned int flags)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    if (flags)
        return -EINVAL;
    real(a, ra);
    real(b, rb);
    return rename(ra, rb) < 0 ? -errno : 0;
}

static int fs_access(const char *p, int mask)
{
    char r[PATH_MAX];
    real(p, r);
    return access(r, mask) < 0 ? -errno : 0;
}

static const struct fuse_operations ops = {
    .getattr  = fs_getattr,
    .readdir  = fs_readdir,
    .open     = fs_open,
    .create   = fs_create,
    .read     = fs_read,
    .write    = fs_write,
    .fsync    = fs_fsync,
    .truncate = fs_truncate,
    .release  = fs_release,
    .unlink   = fs_unlink,
    .mkdir    = fs_mkdir,
    .rmdir    = fs_rmdir,
    .rename   = fs_rename,
    .access   = fs_access,
};

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: fuse_stall BACKING TRIGGER MOUNTPOINT [fuse options]\n");
        return 2;
    }
    if (!realpath(argv[1], backing)) {
        perror(argv[1]);
        return 1;
    }
    snprintf(trigger, sizeof trigger, "%s", argv[2]);
    /* fuse_main sees: prog MOUNTPOINT [options] */
    argv[2] = argv[0];
    return fuse_main(argc - 2, argv + 2, &ops, NULL);
}
