/* fuzz_sblock -- libFuzzer target for the tools' superblock reader
 * (common/sblock.c): the driver-info block (versions 0/1), the superblock
 * extension's object header chunks and continuations (versions 2/3), and
 * h5sf-split's building of new driver info on top of what was read.
 *
 * Input: a file's bytes, in an exact-size buffer, read through a callback
 * as h5sf-info and h5sf-split read a file.  Checks: no crash, overread or
 * endless walk; a failure has a message; accepted driver info lies inside
 * the input, is 1..SB_DRVINFO_MAX bytes, equals the bytes there and has a
 * terminated name; sb_add_drvinfo's output fits its buffers and starts
 * with the superblock's own bytes.  The reader runs again with a file size
 * far beyond the bytes (reads come back short).  Seeds: test/data/superblock
 * (files HDF5 wrote) and test/fuzz/corpus/fuzz_sblock (with driver info).
 *
 *   clang -g -fsanitize=fuzzer,address,undefined -Icommon -Itools test/fuzz/fuzz_sblock.c \
 *         <every .c of common/> -o fuzz_sblock
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sblock.h"
#include "memread.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz_sblock: %s\n", what);
    abort();
}

static void check(const mem_t *m, int r, const sb_info_t *sb, const h5sf_errbuf_t *e)
{
    if (r < 0) {
        if (e->msg[0] == '\0' || !memchr(e->msg, '\0', sizeof e->msg))
            die("failure without a message");
        return;
    }
    if (sb->hdr.sig_off > m->n || sb->hdr.len > m->n - sb->hdr.sig_off)
        die("superblock past the end of the input");
    if (!sb->has_drvinfo)
        return;
    if (sb->drv_len == 0 || sb->drv_len > SB_DRVINFO_MAX)
        die("driver info of a size out of range");
    if (sb->drvinfo_off > m->n || sb->drv_len > m->n - sb->drvinfo_off)
        die("driver info past the end of the input");
    if (memcmp(sb->drv_buf, m->b + sb->drvinfo_off, sb->drv_len) != 0)
        die("driver info differs from the input's bytes");
    if (!memchr(sb->drv_name, '\0', sizeof sb->drv_name))
        die("driver name not terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *buf = malloc(size ? size : 1);
    sb_info_t     *sb  = malloc(sizeof *sb);
    h5sf_errbuf_t  e   = {0};
    if (!buf || !sb) {
        free(buf);
        free(sb);
        return 0;
    }
    memcpy(buf, data, size);
    mem_t m = {buf, size};

    int r = sb_read(mem_read, &m, size, sb, &e);
    check(&m, r, sb, &e);
    if (r == 0) {
        /* What h5sf-split would add: fits, and keeps the superblock's bytes
         * but for the fields it patches. */
        static const unsigned char info[40] = {1, 2, 3};
        unsigned char              out[H5SF_SB_MAX], tail[SB_TAIL_MAX];
        size_t                     ol = 0, tl = 0;
        memset(&e, 0, sizeof e);
        if (sb_add_drvinfo(sb, "Subfilin", info, sizeof info, out, &ol, tail, &tl, &e) == 0) {
            if (ol != sb->hdr.len || tl == 0 || tl > SB_TAIL_MAX)
                die("sb_add_drvinfo output of a wrong size");
            if (memcmp(out, sb->raw, 12) != 0)
                die("sb_add_drvinfo changed the signature or version");
        }
        else if (e.msg[0] == '\0')
            die("sb_add_drvinfo failed without a message");
    }

    memset(&e, 0, sizeof e);
    r = sb_read(mem_read, &m, UINT64_MAX, sb, &e);
    check(&m, r, sb, &e);
    free(sb);
    free(buf);
    return 0;
}
