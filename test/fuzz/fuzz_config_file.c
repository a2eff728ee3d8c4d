/* fuzz_config_file -- libFuzzer target for the subfiling config-file parser.
 *
 * Input: the file's bytes, handed over in an exact-size buffer without a
 * terminating NUL (the parser must honour the length).  Checks: no crash, and
 * an accepted file gives a sane layout.
 *
 *   clang -g -fsanitize=fuzzer,address,undefined -Icommon test/fuzz/fuzz_config_file.c \
 *         <every .c of common/> -o fuzz_config_file
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    h5sf_layout_t *l = calloc(1, sizeof *l);
    h5sf_errbuf_t  e = {0};
    if (l && h5sf_config_file_parse(text, size, l, &e) == 0) {
        if (l->stripe_size <= 0 || l->stripe_count < 1 || l->stripe_count > 65536 ||
            !memchr(l->subfile_dir, '\0', sizeof l->subfile_dir)) {
            fprintf(stderr, "fuzz_config_file: accepted a bad layout (%lld, %d)\n", (long long)l->stripe_size,
                    (int)l->stripe_count);
            abort();
        }
    }
    else if (l && (e.msg[0] == '\0' || !memchr(e.msg, '\0', sizeof e.msg))) {
        fprintf(stderr, "fuzz_config_file: failure without a message\n");
        abort();
    }
    free(l);
    free(text);
    return 0;
}
