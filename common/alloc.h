/*
 * alloc.h -- h5sf's one allocator, and the fault sites a test can fail one
 * at a time (SQLite's way: fail the 1st, then the 2nd, ... Nth allocation
 * or system call of a scenario, and check each outcome).
 *
 * Every block h5sf allocates for itself comes from h5sf_malloc and friends
 * and goes back through h5sf_free: blocks are counted, so a test sees a
 * leak of h5sf's own memory without ASan.  Memory another library hands
 * out (realpath, open_memstream, HDF5) is freed with that library's call,
 * never with h5sf_free, and the reverse.
 *
 * A fault site is a point where h5sf can be refused something: an
 * allocation (here), a system call (common/sysio.c) or an MPI call that
 * can fail on one rank alone (ioc/mpisite.c).  Each kind counts the sites
 * it passes; once armed with n, its nth site from then on fails, once.
 * No HDF5, no MPI; safe from any thread (atomics).
 */
#ifndef H5SF_ALLOC_H
#define H5SF_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* malloc(3) and friends, counted; NULL (errno ENOMEM) when a test fails
 * this site.  A size of 0 still gives a block (one byte), so NULL always
 * means failure.  h5sf_realloc(p, n) that fails leaves p as it was.  The
 * attributes tell the compiler what it knows of malloc(3) and friends. */
void *h5sf_malloc(size_t n) __attribute__((malloc, alloc_size(1)));
void *h5sf_calloc(size_t n, size_t size) __attribute__((malloc, alloc_size(1, 2)));
void *h5sf_realloc(void *p, size_t n) __attribute__((alloc_size(2)));
char *h5sf_strdup(const char *s) __attribute__((malloc));
void  h5sf_free(void *p);

/* Blocks from h5sf_malloc/calloc/realloc/strdup not yet freed, in this
 * process. */
long h5sf_alloc_live(void);

/* ---- fault sites (tests only) ------------------------------------------ */

typedef enum h5sf_site_kind {
    H5SF_SITE_ALLOC,   /* h5sf_malloc, _calloc, _realloc, _strdup: ENOMEM   */
    H5SF_SITE_SYSCALL, /* every row of common/sysio.c's table: the armed errno */
    H5SF_SITE_MPI,     /* MPI calls that can fail locally (ioc/mpisite.c)     */
    H5SF_SITE_KINDS
} h5sf_site_kind_t;

/* Reset kind's count of sites passed and arm it: the nth site from now
 * fails (n >= 1), once, with errno err (allocations and MPI sites:
 * ENOMEM whatever err says); n = 0 disarms.  Per process. */
void h5sf_sites_arm(h5sf_site_kind_t kind, long n, int err);
/* Sites of kind passed since it was last armed (or disarmed). */
long h5sf_sites_passed(h5sf_site_kind_t kind);
/* Whether the armed site was reached, that is, a failure was injected. */
bool h5sf_sites_fired(h5sf_site_kind_t kind);
/* A test's veto, asked at the armed site (in whatever thread reached it):
 * false lets it pass, as when n is beyond the sites (h5sf_sites_vetoed
 * says so).  For sites whose failure a test cannot survive, e.g. inside a
 * library that makes the ranks diverge.  NULL: none. */
typedef bool (*h5sf_site_veto_t)(h5sf_site_kind_t kind);
void h5sf_sites_veto(h5sf_site_veto_t fn);
bool h5sf_sites_vetoed(h5sf_site_kind_t kind);
/* Called at a site of kind: 0 to go on, else the errno to fail with (and,
 * with H5SF_TEST_SITES_TRACE set, the failing site's stack on stderr). */
int h5sf_site(h5sf_site_kind_t kind);

#endif
