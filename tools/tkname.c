/*
 * tkname.c -- the tools' handling of untrusted names (see toolkit.h): what
 * a directory entry next to a stub is (one of its subfiles, a config file,
 * something else), and printing a name, a config value or a message that
 * holds them without letting its bytes drive the terminal.  No system
 * calls but stdio, no libuv, so the fuzz targets (test/fuzz/fuzz_infoname.c)
 * build it alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* vasprintf */
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "toolkit.h"

int tk_classify_name(const char *name, const char *base, uint64_t *inode, long *nn, long *m)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".subfile_", 9) != 0)
        return TK_NAME_OTHER;
    const char *p = name + bl + 9;
    char       *end;
    if (*p < '0' || *p > '9')
        return TK_NAME_OTHER;
    *inode = strtoull(p, &end, 10);
    if (strcmp(end, ".config") == 0)
        return TK_NAME_CONFIG;
    if (*end != '_' || end[1] < '0' || end[1] > '9')
        return TK_NAME_OTHER;
    *nn = strtol(end + 1, &end, 10);
    if (strncmp(end, "_of_", 4) != 0 || end[4] < '0' || end[4] > '9')
        return TK_NAME_OTHER;
    *m = strtol(end + 4, &end, 10);
    return *end ? TK_NAME_OTHER : TK_NAME_SUBFILE;
}

/* Bytes of the UTF-8 sequence at p that prints as a character (not a C0
 * or C1 control, not DEL, not malformed, overlong or a surrogate), or 0. */
static size_t printable_utf8(const unsigned char *p)
{
    if (p[0] >= 0x20 && p[0] < 0x7f)
        return 1;
    size_t   n;
    uint32_t c;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
        c = p[0] & 0x1fu;
    }
    else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        c = p[0] & 0x0fu;
    }
    else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        c = p[0] & 0x07u;
    }
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        c = (c << 6) | (p[i] & 0x3fu);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || (c >= 0x80 && c <= 0x9f))
        return 0;
    return n;
}

size_t tk_escape(const char *s, char *out, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t               k = 0;
    if (n == 0)
        return 0;
    while (*p) {
        size_t c = printable_utf8(p);
        char   esc[5];
        size_t len;
        if (c > 0 && *p != '\\') {
            memcpy(esc, p, c);
            len = c;
        }
        else {
            c   = 1;
            len = *p == '\\' ? 2 : 4;
            if (*p == '\\')
                memcpy(esc, "\\\\", 2);
            else
                snprintf(esc, sizeof esc, "\\x%02x", *p);
        }
        if (k + len >= n)
            break; /* cut at a whole character */
        memcpy(out + k, esc, len);
        k += len;
        p += c;
    }
    out[k] = '\0';
    return k;
}

void tk_print(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    char   *raw = NULL;
    va_start(ap, fmt);
    int w = vasprintf(&raw, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    bool nl = w > 0 && raw[w - 1] == '\n';
    if (nl)
        raw[w - 1] = '\0';
    size_t cap = 4 * (size_t)w + 1;
    char  *out = malloc(cap);
    if (out) {
        tk_escape(raw, out, cap);
        fputs(out, fp);
        if (nl)
            fputc('\n', fp);
    }
    free(out);
    free(raw);
}
