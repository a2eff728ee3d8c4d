/* fuzz_infoname -- libFuzzer target for the tools' handling of names found
 * in a directory (tools/tkname.c): h5sf-info's classification of the
 * entries next to a stub, and the escaping every tool applies before it
 * prints a name, a config value or a message holding them.
 *
 * Input: a base name, a NUL, then a directory entry's name (a missing NUL:
 * the whole input is the entry, the base is "f.h5").  Checks: no crash or
 * overread; a subfile or config name starts with "<base>.subfile_" and a
 * config name ends in ".config"; the escaped text holds no control byte
 * (C0, DEL, C1 as UTF-8) and no malformed UTF-8, fits its buffer, and
 * escaping it again only doubles its backslashes; a cut buffer gives a
 * prefix of the whole text.
 *
 *   clang -g -fsanitize=fuzzer,address,undefined -Icommon -Itools test/fuzz/fuzz_infoname.c \
 *         tools/tkname.c <every .c of common/> -o fuzz_infoname
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "toolkit.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz_infoname: %s\n", what);
    abort();
}

/* An independent reading of the escaped text: printable ASCII, or a
 * well-formed UTF-8 sequence of 2..4 bytes whose code point is not a C1
 * control (U+0080..U+009F). */
static void check_printable(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        if (p[i] >= 0x20 && p[i] < 0x7f) {
            i++;
            continue;
        }
        size_t len = (p[i] & 0xe0) == 0xc0 ? 2 : (p[i] & 0xf0) == 0xe0 ? 3 : (p[i] & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || i + len > n)
            die("escaped text holds a control byte or a broken sequence");
        for (size_t k = 1; k < len; k++)
            if ((p[i + k] & 0xc0) != 0x80)
                die("escaped text holds malformed UTF-8");
        if (p[i] == 0xc2 && p[i + 1] <= 0x9f)
            die("escaped text holds a C1 control");
        if (p[i] == 0xc0 || p[i] == 0xc1)
            die("escaped text holds an overlong sequence");
        i += len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul  = memchr(data, 0, size);
    char          *base = nul ? strndup((const char *)data, (size_t)(nul - data)) : strdup("f.h5");
    const uint8_t *rest = nul ? nul + 1 : data;
    size_t         rn   = size - (size_t)(rest - data);
    char          *name = malloc(rn + 1);
    if (!base || !name) {
        free(base);
        free(name);
        return 0;
    }
    memcpy(name, rest, rn);
    name[rn] = '\0'; /* a directory entry has no NUL inside: cut at the first */

    uint64_t ino = 0;
    long     nn = 0, m = 0;
    int      k  = tk_classify_name(name, base, &ino, &nn, &m);
    size_t   bl = strlen(base);
    if (k != TK_NAME_OTHER && (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".subfile_", 9) != 0))
        die("classified a name that is not <base>.subfile_...");
    if (k == TK_NAME_CONFIG && (strlen(name) < 7 || strcmp(name + strlen(name) - 7, ".config") != 0))
        die("a config name without .config");
    if (k == TK_NAME_SUBFILE && !strstr(name + bl, "_of_"))
        die("a subfile name without _of_");

    size_t nl  = strlen(name);
    size_t cap = 4 * nl + 1;
    char  *out = malloc(cap), *again = malloc(2 * cap), *cut = malloc(cap);
    if (out && again && cut) {
        size_t w = tk_escape(name, out, cap);
        if (w != strlen(out) || w >= cap)
            die("escaped length wrong or past the buffer");
        check_printable((const unsigned char *)out, w);
        size_t slashes = 0;
        for (size_t i = 0; i < w; i++)
            slashes += out[i] == '\\';
        if (tk_escape(out, again, 2 * cap) != w + slashes)
            die("escaping escaped text changed more than its backslashes");
        size_t small = nl ? (size_t)data[0] % cap + 1 : 1;
        size_t cw    = tk_escape(name, cut, small);
        if (cw >= small || strncmp(cut, out, cw) != 0)
            die("a cut buffer is not a prefix of the whole text");
    }
    free(out);
    free(again);
    free(cut);
    free(name);
    free(base);
    return 0;
}
