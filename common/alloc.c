/*
 * alloc.c -- h5sf's allocator (counted blocks) and the fault-site counters
 * of every kind (see alloc.h).
 *
 * Invariants:
 *  - live counts the blocks this file handed out and did not get back;
 *    a failed call changes nothing but the site count.
 *  - A kind's site count only grows between two arms; the armed site is
 *    the one whose increment returns n, so among threads racing through
 *    sites exactly one fails.
 * Owns the counters; must not call HDF5 or MPI (IOC workers and pool
 * threads allocate), nor allocate itself.
 */
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "settings.h"

static atomic_long live;

static struct site {
    atomic_long passed; /* sites since the last arm            */
    atomic_long at;     /* the site to fail (0: none)          */
    atomic_bool fired;  /* it was reached and failed           */
    atomic_bool vetoed; /* it was reached and the test let it pass */
    atomic_int  err;    /* errno it fails with                 */
} S[H5SF_SITE_KINDS];

void h5sf_sites_arm(h5sf_site_kind_t kind, long n, int err)
{
    struct site *s = &S[kind];
    atomic_store(&s->at, 0); /* no site fails while the count restarts */
    atomic_store(&s->passed, 0);
    atomic_store(&s->fired, false);
    atomic_store(&s->vetoed, false);
    atomic_store(&s->err, kind == H5SF_SITE_SYSCALL && err ? err : ENOMEM);
    atomic_store(&s->at, n > 0 ? n : 0);
}

long h5sf_sites_passed(h5sf_site_kind_t kind) { return atomic_load(&S[kind].passed); }

bool h5sf_sites_fired(h5sf_site_kind_t kind) { return atomic_load(&S[kind].fired); }

static _Atomic(h5sf_site_veto_t) veto;

void h5sf_sites_veto(h5sf_site_veto_t fn) { atomic_store(&veto, fn); }

bool h5sf_sites_vetoed(h5sf_site_kind_t kind) { return atomic_load(&S[kind].vetoed); }

/* H5SF_TEST_SITES_TRACE set: where the failing site is, on stderr (to read a
 * sweep's failure). */
static void trace(h5sf_site_kind_t kind, long k)
{
    void *pc[32];
    int   n = backtrace(pc, 32);
    char  head[80];
    int   w = snprintf(head, sizeof head, "h5sf: failing site %ld of kind %d here:\n", k, (int)kind);
    if (w > 0 && write(2, head, (size_t)w) < 0)
        return;
    backtrace_symbols_fd(pc, n, 2);
}

int h5sf_site(h5sf_site_kind_t kind)
{
    struct site *s = &S[kind];
    long         k = atomic_fetch_add(&s->passed, 1) + 1;
    if (k != atomic_load(&s->at))
        return 0;
    h5sf_site_veto_t v = atomic_load(&veto);
    if (v && !v(kind)) {
        atomic_store(&s->vetoed, true);
        return 0;
    }
    atomic_store(&s->fired, true);
    if (h5sf_var(H5SF_VAR_TEST_SITES_TRACE))
        trace(kind, k);
    return atomic_load(&s->err);
}

long h5sf_alloc_live(void) { return atomic_load(&live); }

/* The site check of every allocation: NULL with errno when it fails. */
static bool site_fails(void)
{
    int err = h5sf_site(H5SF_SITE_ALLOC);
    if (err)
        errno = err;
    return err != 0;
}

static void *counted(void *p)
{
    if (p)
        atomic_fetch_add(&live, 1);
    return p;
}

void *h5sf_malloc(size_t n) { return site_fails() ? NULL : counted(malloc(n ? n : 1)); }

void *h5sf_calloc(size_t n, size_t size)
{
    return site_fails() ? NULL : counted(calloc(n && size ? n : 1, size ? size : 1));
}

void *h5sf_realloc(void *p, size_t n)
{
    if (!p)
        return h5sf_malloc(n);
    return site_fails() ? NULL : realloc(p, n ? n : 1);
}

char *h5sf_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char  *d = h5sf_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void h5sf_free(void *p)
{
    if (!p)
        return;
    atomic_fetch_sub(&live, 1);
    free(p);
}
