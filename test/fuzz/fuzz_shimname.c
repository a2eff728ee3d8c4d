/* fuzz_shimname -- libFuzzer target for h5sf_setname_match and
 * h5sf_setname_config (common/orphans.c): which names in a directory are a
 * set's, as the preload shim's clean-up, h5sf-orphans and H5Fcreate's
 * reclaim decide it.
 *
 * Input: 8 bytes of inode, 4 of k and N, the set's base up to the first
 * '\n', then a directory entry name (NULs end either early).  Checks,
 * against names printed here with the drivers' template (the independent
 * reference): the set's own config file and subfile k of N (when 1 <= k <=
 * N <= 65536) match with that k and N; any name that matches is exactly
 * the name the template gives for what it matched as (so an inode that
 * only starts with the same digits, or "<base>.subfile_<inode>_README.txt",
 * never does); a name h5sf_setname_config accepts is that set's config file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "orphans.h"

#define BAD(...)                                                                                                       \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_shimname: " __VA_ARGS__);                                                                \
        fprintf(stderr, "\n");                                                                                         \
        abort();                                                                                                       \
    } while (0)

static int width(int n) { return n >= 10000 ? 5 : n >= 1000 ? 4 : n >= 100 ? 3 : n >= 10 ? 2 : 1; }

static void expect_name(const char *got, const char *base, uint64_t ino, int kind, int k, int n)
{
    char want[600];
    if (kind == H5SF_SETNAME_CONFIG)
        snprintf(want, sizeof want, "%s.subfile_%" PRIu64 ".config", base, ino);
    else
        snprintf(want, sizeof want, "%s.subfile_%" PRIu64 "_%0*d_of_%d", base, ino, width(n), k, n);
    if (strcmp(got, want) != 0)
        BAD("\"%s\" matched (%s, %" PRIu64 ") as \"%s\"", got, base, ino, want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t ino = 0;
    if (size < 12)
        return 0;
    memcpy(&ino, data, 8);
    if (data[8] & 1)
        ino %= 100000; /* short inodes: prefixes of each other */
    int         n = 1 + (data[10] | data[11] << 8), k = 1 + (int)((data[9] * 257u + data[8]) % (unsigned)n);
    const char *in = (const char *)data + 12, *nl = memchr(in, '\n', size - 12);
    size_t      bl = nl ? (size_t)(nl - in) : size - 12;
    size_t      rl = nl ? size - 12 - bl - 1 : 0;
    if (bl > 200 || rl > 400)
        return 0;
    char base[201], name[401], built[700];
    memcpy(base, in, bl);
    base[bl] = '\0';
    memcpy(name, nl ? nl + 1 : in, rl);
    name[rl] = '\0';
    int kk = 0, nn = 0, kind;

    if (base[0]) {
        /* The set's own names match. */
        snprintf(built, sizeof built, "%s.subfile_%" PRIu64 ".config", base, ino);
        if (h5sf_setname_match(built, base, ino, NULL, NULL) != H5SF_SETNAME_CONFIG)
            BAD("own config file \"%s\" not matched", built);
        if (k <= n && n <= 65536) {
            snprintf(built, sizeof built, "%s.subfile_%" PRIu64 "_%0*d_of_%d", base, ino, width(n), k, n);
            if (h5sf_setname_match(built, base, ino, &kk, &nn) != H5SF_SETNAME_SUBFILE || kk != k || nn != n)
                BAD("own subfile \"%s\" not matched (%d of %d)", built, kk, nn);
        }
        /* Whatever matches is exactly the template's name. */
        if ((kind = h5sf_setname_match(name, base, ino, &kk, &nn)) != H5SF_SETNAME_NONE)
            expect_name(name, base, ino, kind, kk, nn);
    }
    uint64_t ci;
    size_t   cbl;
    if (h5sf_setname_config(name, &ci, &cbl)) {
        char b[401];
        if (cbl == 0 || cbl >= sizeof b)
            BAD("config name \"%s\" with base length %zu", name, cbl);
        memcpy(b, name, cbl);
        b[cbl] = '\0';
        if (h5sf_setname_match(name, b, ci, NULL, NULL) != H5SF_SETNAME_CONFIG)
            BAD("\"%s\" parsed as config of (%s, %" PRIu64 ") but does not match it", name, b, ci);
    }
    return 0;
}
