/*
 * errbuf.h -- error text from HDF5-free code.
 *
 * common/ and ioc/ never call HDF5: they fill an h5sf_errbuf_t and return -1.
 * The VFD layer turns the text into an HDF5 error (H5SF_GOTO in vfd/).  This
 * keeps the parsers fuzzable and the IOC threads free of HDF5's error stack.
 */
#ifndef H5SF_ERRBUF_H
#define H5SF_ERRBUF_H

#include <stdarg.h>
#include <stdio.h>

typedef struct h5sf_errbuf {
    int  err_no; /* errno of a failed system call, 0 if none */
    char msg[512];
} h5sf_errbuf_t;

/* Record a failure; always returns -1 so callers can `return h5sf_fail(...)`. */
static inline int h5sf_fail(h5sf_errbuf_t *e, int err_no, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline int h5sf_fail(h5sf_errbuf_t *e, int err_no, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->err_no = err_no;
    }
    return -1;
}

#endif
