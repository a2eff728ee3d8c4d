/* fuzz_config_string -- libFuzzer target for the config-string parsers.
 *
 * Input: arbitrary bytes, used as a NUL-terminated config string (and as a
 * bare value for the individual value parsers).  Checks, beyond "no crash":
 * a parse that succeeds yields a config that validates, and its rendering is
 * a fixed point of format -> parse -> format.
 *
 *   clang -g -fsanitize=fuzzer,address,undefined -Icommon test/fuzz/fuzz_config_string.c \
 *         <every .c of common/> -o fuzz_config_string
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "settings.h"

static void die(const char *what, const char *in, const char *detail)
{
    fprintf(stderr, "fuzz_config_string: %s\n  input: \"%s\"\n  %s\n", what, in, detail);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    h5sf_settings_t *c = malloc(sizeof *c), *r = malloc(sizeof *r);
    char            *f1 = malloc(16384), *f2 = malloc(16384);
    h5sf_errbuf_t    e = {0};
    h5sf_settings_defaults(c);
    if (h5sf_settings_parse(s, c, &e) == 0) {
        if (h5sf_settings_validate(c, &e) != 0)
            die("parse accepted an invalid config", s, e.msg);
        int n1 = h5sf_settings_format(c, f1, 16384);
        if (n1 < 0)
            die("format failed on a parsed config", s, "");
        h5sf_settings_defaults(r);
        if (h5sf_settings_parse(f1, r, &e) != 0)
            die("parse rejected format's output", s, e.msg);
        int n2 = h5sf_settings_format(r, f2, 16384);
        if (n1 != n2 || strcmp(f1, f2) != 0)
            die("format is not a fixed point", s, f2);
        if (strcmp(c->subfile_dir, r->subfile_dir) || strcmp(c->config_dir, r->config_dir) ||
            strcmp(c->ioc_list, r->ioc_list) || c->ioc_mode != r->ioc_mode)
            die("round trip changed a field", s, f1);
    }
    else if (!memchr(e.msg, '\0', sizeof e.msg) || e.msg[0] == '\0')
        die("failure without a message", s, "");

    /* The value parsers on their own. */
    int64_t v64;
    int32_t v32;
    int    *ranks = NULL, n = 0;
    h5sf_parse_size(s, &v64, &e, "fuzz");
    h5sf_parse_int(s, -5, 1000, &v32, &e, "fuzz");
    h5sf_settings_defaults(c);
    if (h5sf_parse_ioc(s, c, &e, "fuzz") == 0 && h5sf_settings_validate(c, &e) != 0)
        die("parse_ioc accepted an invalid setting", s, e.msg);
    if (h5sf_parse_rank_list(s, 1 + (int)(size % 64), &ranks, &n, &e) == 0) {
        for (int i = 1; i < n; i++)
            if (ranks[i] <= ranks[i - 1])
                die("rank list not sorted/unique", s, "");
        free(ranks);
    }
    free(c);
    free(r);
    free(f1);
    free(f2);
    free(s);
    return 0;
}
