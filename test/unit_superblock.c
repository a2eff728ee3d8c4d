/*
 * unit_superblock.c -- finding and decoding the HDF5 superblock
 * (common/superblock.c) and the driver info the tools find after it
 * (common/sblock.c), against files HDF5 1.14.5 wrote (test/data/superblock,
 * made by its make.sh): versions 0, 1, 2 and 3, user blocks of 512 and 1024
 * bytes, 2-, 4- and 8-byte addresses, with and without driver info.
 *
 * The expected values are HDF5's: version, superblock size, user block,
 * sizes and the root object header's address as H5Fget_info2,
 * H5Pget_userblock, H5Pget_sizes and H5Oget_info3 report them (make.sh
 * prints them), the end of file as the file's length (HDF5 truncates the
 * file to it at close), and the family driver's info (8 bytes: the member
 * size make.sh chose).  Then damaged copies: each must fail, naming the
 * problem, and leave the result untouched.  Last, common/layout.c's
 * checks of a stub whose config file is missing, on the same files.
 *
 *   unit_superblock <test/data/superblock>
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "layout.h"
#include "sblock.h"
#include "superblock.h"

#include "h5sf_test.h"

#define UNDEF H5SF_SB_UNDEF

typedef struct {
    const char *name;
    uint64_t    sig_off;
    int         version, o, l;
    size_t      len;
    uint64_t    root, driver, ext;
    int         family; /* driver info "NCSAfami" (a block in v0, a message in the extension in v3) */
} ref_t;

static const ref_t refs[] = {
    {"v0.h5", 0, 0, 8, 8, 96, 96, UNDEF, UNDEF, 0},
    {"v0-ub512.h5", 512, 0, 8, 8, 96, 96, UNDEF, UNDEF, 0},
    {"v0-o4-ub1024.h5", 1024, 0, 4, 4, 72, 72, UNDEF, UNDEF, 0},
    {"v1.h5", 0, 1, 8, 8, 100, 100, UNDEF, UNDEF, 0},
    /* The driver-info block follows the superblock: 96 + 16-byte header +
     * 8 bytes of info = 120, where HDF5 puts the root object header. */
    {"v0-family.h5", 0, 0, 8, 8, 96, 120, 96, UNDEF, 1},
    {"v2.h5", 0, 2, 8, 8, 48, 48, UNDEF, UNDEF, 0},
    {"v2-o2.h5", 0, 2, 2, 2, 24, 24, UNDEF, UNDEF, 0},
    {"v3.h5", 0, 3, 8, 8, 48, 48, UNDEF, UNDEF, 0},
    {"v3-o4-ub512.h5", 512, 3, 4, 8, 32, 32, UNDEF, UNDEF, 0},
    /* The 50-byte extension follows the superblock: 48 + 50 = 98. */
    {"v3-family.h5", 0, 3, 8, 8, 48, 98, UNDEF, 48, 1},
};

/* A file in memory; err != 0 makes every read fail with it. */
typedef struct {
    const unsigned char *b;
    size_t               n;
    int                  err;
} mem_t;

static ssize_t mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    mem_t *m = ctx;
    if (m->err) {
        errno = m->err;
        return -1;
    }
    if (off >= m->n)
        return 0;
    if (len > m->n - off)
        len = (size_t)(m->n - off);
    memcpy(buf, m->b + off, len);
    return (ssize_t)len;
}

static unsigned char *load(const char *dir, const char *name, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE          *f = fopen(path, "rb");
    unsigned char *b = malloc(1 << 16);
    *n               = f && b ? fread(b, 1, 1 << 16, f) : 0;
    if (f)
        fclose(f);
    CHECK(*n > 0, "cannot read %s", path);
    return b;
}

/* Decode m; on failure the message must contain `want` and *sb stay as it was. */
static void expect_fail(mem_t *m, const char *want, const char *what)
{
    h5sf_superblock_t sb, before;
    unsigned char     raw[H5SF_SB_MAX];
    h5sf_errbuf_t     e = {0};
    memset(&sb, 0xa5, sizeof sb);
    before = sb;
    CHECK(h5sf_superblock_read(mem_read, m, m->n, &sb, raw, &e) < 0, "%s: accepted", what);
    CHECK(strstr(e.msg, want) != NULL, "%s: message \"%s\" lacks \"%s\"", what, e.msg, want);
    CHECK(memcmp(&sb, &before, sizeof sb) == 0, "%s: the result was written on failure", what);
}

static void check_ref(const char *dir, const ref_t *r)
{
    size_t            n;
    unsigned char    *b = load(dir, r->name, &n);
    mem_t             m = {b, n, 0};
    h5sf_superblock_t sb;
    unsigned char     raw[H5SF_SB_MAX];
    h5sf_errbuf_t     e = {0};
    if (!n) {
        free(b);
        return;
    }
    if (h5sf_superblock_read(mem_read, &m, n, &sb, raw, &e) < 0) {
        CHECK(0, "%s: %s", r->name, e.msg);
        free(b);
        return;
    }
    CHECK(sb.sig_off == r->sig_off && sb.base_addr == r->sig_off, "%s: at %llu, base %llu", r->name,
          (unsigned long long)sb.sig_off, (unsigned long long)sb.base_addr);
    CHECK(sb.version == r->version, "%s: version %d", r->name, sb.version);
    CHECK(sb.sizeof_addr == r->o && sb.sizeof_size == r->l, "%s: sizes %d/%d", r->name, sb.sizeof_addr, sb.sizeof_size);
    CHECK(sb.len == r->len, "%s: %zu bytes", r->name, sb.len);
    CHECK(sb.root_addr == r->root, "%s: root at %llu", r->name, (unsigned long long)sb.root_addr);
    CHECK(sb.driver_addr == r->driver, "%s: driver info block at %llu", r->name, (unsigned long long)sb.driver_addr);
    CHECK(sb.ext_addr == r->ext, "%s: extension at %llu", r->name, (unsigned long long)sb.ext_addr);
    CHECK(sb.eof == n, "%s: end of file %llu, file %zu bytes", r->name, (unsigned long long)sb.eof, n);
    CHECK(sb.status_flags == 0, "%s: status flags %u", r->name, sb.status_flags);
    CHECK(memcmp(raw, b + r->sig_off, sb.len) == 0, "%s: raw bytes", r->name);

    /* The decoder alone: exactly the superblock's bytes, then one fewer. */
    h5sf_superblock_t d;
    CHECK(h5sf_superblock_decode(b + r->sig_off, sb.len, r->sig_off, &d, &e) == 0 && memcmp(&d, &sb, sizeof d) == 0,
          "%s: decode of the exact bytes differs", r->name);
    CHECK(h5sf_superblock_decode(b + r->sig_off, sb.len - 1, r->sig_off, &d, &e) < 0 && strstr(e.msg, "cut off"),
          "%s: one byte short: \"%s\"", r->name, e.msg);

    /* The tools' driver info on top of it. */
    sb_info_t *si = calloc(1, sizeof *si);
    if (si && sb_read(mem_read, &m, n, si, &e) == 0) {
        CHECK(memcmp(&si->hdr, &sb, sizeof sb) == 0, "%s: sb_read's superblock differs", r->name);
        CHECK(si->has_drvinfo == (r->family != 0), "%s: driver info %s", r->name,
              si->has_drvinfo ? "found" : "missing");
        if (r->family && si->has_drvinfo)
            CHECK(strcmp(si->drv_name, "NCSAfami") == 0 && si->drv_len == 8 &&
                      h5sf_get_u64(si->drv_buf) == (uint64_t)1 << 20,
                  "%s: driver info \"%s\", %zu bytes", r->name, si->drv_name, si->drv_len);
    }
    else
        CHECK(0, "%s: sb_read: %s", r->name, e.msg);
    free(si);

    /* Damage, one at a time, on a copy: {offset in the superblock, new
     * byte, what the message must say}. */
    const int    old = r->version <= 1;
    const size_t end = (size_t)r->sig_off + sb.len;
    struct {
        size_t        at;
        unsigned char v;
        const char   *want;
    } dmg[] = {
        {8, 4, "version 4 is not known"},
        {old ? 13 : 9, 3, "unsupported address/length sizes 3/"},
        {old ? 14 : 10, 16, "unsupported address/length sizes"},
        {0, 0, "no HDF5 signature found"},
        {sb.len - 1, (unsigned char)(b[end - 1] ^ 1), old ? NULL : "checksum mismatch"},
        {12, (unsigned char)(b[r->sig_off + 12] ^ 1), old ? NULL : "checksum mismatch"},
    };
    unsigned char *c = malloc(n);
    char           what[160];
    for (size_t k = 0; c && k < sizeof dmg / sizeof dmg[0]; k++) {
        if (!dmg[k].want)
            continue;
        memcpy(c, b, n);
        c[r->sig_off + dmg[k].at] = dmg[k].v;
        mem_t dm                  = {c, n, 0};
        snprintf(what, sizeof what, "%s, byte %zu = %u", r->name, dmg[k].at, dmg[k].v);
        expect_fail(&dm, dmg[k].want, what);
    }
    /* An undefined base (all ones; versions 2/3 with a matching checksum). */
    if (c) {
        memcpy(c, b, n);
        unsigned char *s = c + r->sig_off;
        memset(s + (old ? (r->version ? 28 : 24) : 12), 0xff, (size_t)r->o);
        if (!old)
            h5sf_put_u32(s + sb.len - 4, h5sf_metadata_checksum(s, sb.len - 4));
        mem_t dm = {c, n, 0};
        snprintf(what, sizeof what, "%s, undefined base", r->name);
        expect_fail(&dm, "no base or end-of-file address", what);
    }
    /* Cut inside the superblock. */
    mem_t cut = {b, end - 1, 0};
    snprintf(what, sizeof what, "%s cut at %zu", r->name, end - 1);
    expect_fail(&cut, "cut off", what);
    mem_t bad = {b, n, EIO};
    snprintf(what, sizeof what, "%s, read error", r->name);
    expect_fail(&bad, "cannot read the superblock signature at offset 0", what);
    free(c);
    free(b);
}

/* A user block added in front of v3.h5 without telling its superblock
 * (stored base 0): HDF5 moves the base, and the end of file with it. */
static void check_moved_base(const char *dir)
{
    size_t            n;
    unsigned char    *b = load(dir, "v3.h5", &n), *c = calloc(1, n + 2048);
    h5sf_superblock_t sb;
    unsigned char     raw[H5SF_SB_MAX];
    h5sf_errbuf_t     e = {0};
    memcpy(c + 2048, b, n);
    mem_t m = {c, n + 2048, 0};
    CHECK(h5sf_superblock_read(mem_read, &m, m.n, &sb, raw, &e) == 0, "moved: %s", e.msg);
    CHECK(sb.sig_off == 2048 && sb.base_addr == 2048 && sb.eof == n + 2048, "moved: base %llu, end of file %llu",
          (unsigned long long)sb.base_addr, (unsigned long long)sb.eof);
    /* Not at a place HDF5 looks (only 0, 512, 1024, 2048, ...). */
    memset(c, 0, n + 2048);
    memcpy(c + 256, b, n);
    mem_t o = {c, n + 256, 0};
    expect_fail(&o, "no HDF5 signature found", "signature at 256");
    mem_t tiny = {b, 7, 0};
    expect_fail(&tiny, "no HDF5 signature found", "7-byte file");
    free(b);
    free(c);
}

/* h5sf_layout_load of a stub without its config file: 1 (plain) or -1
 * naming the missing config file. */
static int load_stub(const char *path, int fd, h5sf_errbuf_t *e)
{
    h5sf_layout_t *l = calloc(1, sizeof *l);
    struct stat    st;
    int            rc = -2;
    if (l && fstat(fd, &st) == 0 && h5sf_layout_set_stub(l, path, e) == 0) {
        l->inode = (uint64_t)st.st_ino;
        rc       = h5sf_layout_load(l, fd, path, e);
    }
    free(l);
    return rc;
}

/* The stub checks of common/layout.c on HDF5's own files, none of them
 * subfiled: h5sf_stub_lacks_root is 0 for each, and h5sf_layout_load
 * takes each for a plain file.  Then as a subfiled file's stub would be:
 * zeros at the root object header (the objects are in the subfiles) count
 * for versions 2 and 3, not for 0 and 1 (which say it in their driver-info
 * block); a version 0 driver-info block named "Subfilin" counts. */
static void check_stub(const char *dir)
{
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        const ref_t   *r = &refs[i];
        size_t         n;
        unsigned char *b = load(dir, r->name, &n);
        char           path[64];
        h5sf_errbuf_t  e = {0};
        snprintf(path, sizeof path, "unit_superblock.%d.h5", (int)getpid());
        for (int damage = 0; damage < 3; damage++) {
            int want = 0;
            if (damage == 1) { /* a hole at the root object header */
                memset(b + r->sig_off + r->root, 0, 4);
                want = r->version >= 2;
            }
            if (damage == 2) { /* the family driver's block, renamed */
                if (r->driver == UNDEF)
                    break;
                memcpy(b + r->sig_off + r->driver + 8, "Subfilin", 8);
                want = 1;
            }
            int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
            CHECK(fd >= 0 && write(fd, b, n) == (ssize_t)n, "write %s", path);
            if (damage < 2)
                CHECK(h5sf_stub_lacks_root(fd) == (damage && want), "%s%s: h5sf_stub_lacks_root is not %d", r->name,
                      damage ? " with a hole at the root" : "", damage && want);
            int rc = load_stub(path, fd, &e);
            CHECK(want ? rc == -1 && strstr(e.msg, "is a subfiled file, but its config file") : rc == 1,
                  "%s, damage %d: h5sf_layout_load returned %d (%s)", r->name, damage, rc, rc < 0 ? e.msg : "");
            close(fd);
        }
        unlink(path);
        free(b);
    }
}

int main(int argc, char **argv)
{
    t_start("unit_superblock");
    if (argc != 2) {
        fprintf(stderr, "usage: unit_superblock <test/data/superblock>\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        check_ref(argv[1], &refs[i]);
    check_moved_base(argv[1]);
    check_stub(argv[1]);
    printf("unit_superblock: %zu reference files\n", sizeof refs / sizeof refs[0]);
    return t_verdict();
}
