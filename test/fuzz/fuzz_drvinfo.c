/* fuzz_drvinfo -- libFuzzer target for the superblock driver-info decoder.
 *
 * Input: 9 bytes of block name (HDF5 hands the VFD a char[9]), then the block
 * in a buffer of exactly its length, as HDF5 allocates it and as the VFD
 * decodes it (with the length its open read from the file, common/drvlen.h).
 * Checks: no crash or overread, an accepted block gives a sane layout, and
 * encoding that layout decodes to the same values.
 *
 *   clang -g -fsanitize=fuzzer,address,undefined -Icommon test/fuzz/fuzz_drvinfo.c \
 *         <every .c of common/> -o fuzz_drvinfo
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz_drvinfo: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char name[9];
    if (size < sizeof name)
        return 0;
    memcpy(name, data, sizeof name);
    size -= sizeof name;
    unsigned char *buf = malloc(size ? size : 1);
    h5sf_layout_t *l = calloc(1, sizeof *l), *r = calloc(1, sizeof *r);
    if (!buf || !l || !r)
        goto done;
    memcpy(buf, data + sizeof name, size);
    h5sf_errbuf_t e = {0};
    if (h5sf_drvinfo_decode(name, buf, size, l, &e) != 0) {
        if (e.msg[0] == '\0' || !memchr(e.msg, '\0', sizeof e.msg))
            die("failure without a message");
        goto done;
    }
    if (l->stripe_size <= 0 || l->stripe_count < 1 || l->stripe_count > 65536 ||
        !memchr(l->config_dir, '\0', sizeof l->config_dir))
        die("accepted a bad block");
    /* Re-encode (fails only for prefixes the built-in could not store either). */
    size_t         n   = h5sf_drvinfo_size(l);
    unsigned char *enc = malloc(n);
    char           nm[9];
    if (enc && h5sf_drvinfo_encode(l, nm, enc) == 0) {
        if (h5sf_drvinfo_decode(nm, enc, n, r, &e) != 0)
            die("could not decode our own encoding");
        if (r->stripe_size != l->stripe_size || r->stripe_count != l->stripe_count ||
            strcmp(r->config_dir, l->config_dir) != 0)
            die("re-encoding changed the values");
        /* Stripe fields must survive byte for byte; the prefix length may
         * not: an empty prefix stored as one NUL byte re-encodes as none,
         * which both drivers read the same way (checked above). */
        if (n > size || memcmp(enc, buf, 8) != 0 || memcmp(enc + 12, buf + 12, 16) != 0)
            die("re-encoding changed the header");
    }
    free(enc);
done:
    free(buf);
    free(l);
    free(r);
    return 0;
}
