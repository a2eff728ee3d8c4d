/* memread.h -- an h5sf_read_at_fn over bytes in memory, for the fuzz
 * targets that read a whole file through a callback (fuzz_superblock,
 * fuzz_sblock): reads past the end come back short, as at end of file. */
#ifndef H5SF_FUZZ_MEMREAD_H
#define H5SF_FUZZ_MEMREAD_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>

typedef struct {
    const unsigned char *b;
    size_t               n;
} mem_t;

static ssize_t mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    const mem_t *m = ctx;
    if (off >= m->n)
        return 0;
    if (len > m->n - off)
        len = (size_t)(m->n - off);
    memcpy(buf, m->b + off, len);
    return (ssize_t)len;
}

#endif
