/* fuzz_superblock -- libFuzzer target for finding and decoding the HDF5
 * superblock (common/superblock.c).
 *
 * Input: a file's bytes, in an exact-size buffer.  Checks: no crash or
 * overread; a failure has a message and leaves the result untouched; an
 * accepted superblock has a known version and field sizes, lies inside the
 * input, carries its own checksum (versions 2/3), and decodes the same
 * from the bytes alone as through the search.  Versions 2/3 are decoded
 * once more with their checksum set right, to reach the checks after it.  The search also runs with a
 * file size far beyond the bytes there are (reads come back short), which
 * must end in a failure, not a loop.  Seeds: test/data/superblock, files
 * HDF5 wrote.
 *
 *   clang -g -fsanitize=fuzzer,address,undefined -Icommon test/fuzz/fuzz_superblock.c \
 *         <every .c of common/> -o fuzz_superblock
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bytes.h"
#include "superblock.h"
#include "memread.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz_superblock: %s\n", what);
    abort();
}

static void check_failure(const h5sf_errbuf_t *e, const h5sf_superblock_t *sb, const h5sf_superblock_t *poison)
{
    if (e->msg[0] == '\0' || !memchr(e->msg, '\0', sizeof e->msg))
        die("failure without a message");
    if (memcmp(sb, poison, sizeof *sb) != 0)
        die("the result was written on failure");
}

static void check_accepted(const h5sf_superblock_t *sb, const unsigned char *s, size_t avail)
{
    if (sb->version < 0 || sb->version > 3)
        die("accepted an unknown version");
    for (int k = 0; k < 2; k++) {
        int z = k ? sb->sizeof_size : sb->sizeof_addr;
        if (z != 2 && z != 4 && z != 8)
            die("accepted a field size other than 2, 4 or 8");
    }
    if (sb->len < 16 || sb->len > avail || sb->len > H5SF_SB_MAX)
        die("accepted a superblock longer than its bytes");
    if (sb->base_addr != sb->sig_off)
        die("the base is not where the superblock is");
    if (sb->version >= 2 && h5sf_metadata_checksum(s, sb->len - 4) != h5sf_get_u32(s + sb->len - 4))
        die("accepted a bad checksum");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char    *buf = malloc(size ? size : 1);
    h5sf_superblock_t poison, sb, d;
    unsigned char     raw[H5SF_SB_MAX];
    h5sf_errbuf_t     e = {0};
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    memset(&poison, 0x5a, sizeof poison);

    /* The decoder alone, on the bytes as if the signature were at 0. */
    sb = poison;
    if (h5sf_superblock_decode(buf, size, 0, &sb, &e) == 0)
        check_accepted(&sb, buf, size);
    else
        check_failure(&e, &sb, &poison);

    /* Again with a right checksum (random bytes rarely carry one), so that
     * the checks after it are reached too. */
    if (size >= 16 && (buf[8] == 2 || buf[8] == 3) && buf[9] <= 8 && 16 + 4 * (size_t)buf[9] <= size) {
        size_t         len = 16 + 4 * (size_t)buf[9];
        unsigned char *fix = malloc(size);
        if (fix) {
            memcpy(fix, buf, size);
            h5sf_put_u32(fix + len - 4, h5sf_metadata_checksum(fix, len - 4));
            sb = poison;
            memset(&e, 0, sizeof e);
            if (h5sf_superblock_decode(fix, size, 0, &sb, &e) == 0)
                check_accepted(&sb, fix, size);
            else
                check_failure(&e, &sb, &poison);
            free(fix);
        }
    }

    /* The search. */
    mem_t m = {buf, size};
    sb      = poison;
    memset(&e, 0, sizeof e);
    if (h5sf_superblock_read(mem_read, &m, size, &sb, raw, &e) == 0) {
        if (sb.sig_off > size || size - sb.sig_off < sb.len)
            die("found a superblock past the end");
        check_accepted(&sb, buf + sb.sig_off, size - sb.sig_off);
        if (memcmp(raw, buf + sb.sig_off, sb.len) != 0)
            die("raw bytes differ from the file's");
        memset(&d, 0, sizeof d);
        if (h5sf_superblock_decode(buf + sb.sig_off, size - sb.sig_off, sb.sig_off, &d, &e) != 0 ||
            memcmp(&d, &sb, sizeof d) != 0)
            die("the search and the decoder disagree");
    }
    else
        check_failure(&e, &sb, &poison);

    /* A file size far beyond the bytes: short reads, then a failure. */
    sb = poison;
    memset(&e, 0, sizeof e);
    if (h5sf_superblock_read(mem_read, &m, UINT64_MAX, &sb, raw, &e) == 0)
        check_accepted(&sb, buf + sb.sig_off, size - sb.sig_off);
    else
        check_failure(&e, &sb, &poison);
    free(buf);
    return 0;
}
