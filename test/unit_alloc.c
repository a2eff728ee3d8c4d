/*
 * unit_alloc.c -- h5sf's allocator and fault-site counters (common/alloc.c):
 * blocks are counted until freed; an armed site fails exactly once, the
 * nth from the arm, with ENOMEM; a failed realloc keeps its block; threads
 * racing through sites see exactly one failure.  No HDF5, no MPI.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "../common/alloc.h"
#include "h5sf_test.h"

#define THREADS 4
#define EACH    20000

static long            failed_in_threads;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *churn(void *arg)
{
    long mine = 0;
    (void)arg;
    for (int i = 0; i < EACH; i++) {
        void *p = h5sf_malloc(16);
        if (!p)
            mine++;
        h5sf_free(p);
    }
    pthread_mutex_lock(&mu);
    failed_in_threads += mine;
    pthread_mutex_unlock(&mu);
    return NULL;
}

int main(void)
{
    t_start("unit_alloc");
    long base = h5sf_alloc_live();

    /* Counted blocks, every kind of call; size 0 still a block. */
    h5sf_sites_arm(H5SF_SITE_ALLOC, 0, 0);
    void *a = h5sf_malloc(0), *b = h5sf_calloc(3, 5), *c = h5sf_realloc(NULL, 7);
    char *d = h5sf_strdup("h5sf");
    CHECK(a && b && c && d && !strcmp(d, "h5sf"), "an allocation failed unarmed");
    CHECK(((unsigned char *)b)[14] == 0, "calloc not zeroed");
    CHECK(h5sf_alloc_live() == base + 4, "live %ld, expected %ld", h5sf_alloc_live(), base + 4);
    CHECK_EQ(h5sf_sites_passed(H5SF_SITE_ALLOC), 4);
    c = h5sf_realloc(c, 4096);
    CHECK(c && h5sf_alloc_live() == base + 4, "realloc changed the count");

    /* The 2nd site from the arm fails, once; a failed realloc keeps c. */
    h5sf_sites_arm(H5SF_SITE_ALLOC, 2, 0);
    void *e = h5sf_malloc(8);
    errno   = 0;
    void *f = h5sf_realloc(c, 8192);
    CHECK(e && !f && errno == ENOMEM && h5sf_sites_fired(H5SF_SITE_ALLOC), "the 2nd site did not fail with ENOMEM");
    CHECK(h5sf_alloc_live() == base + 5, "live %ld after a failed realloc", h5sf_alloc_live());
    void *g = h5sf_strdup("x");
    CHECK(g != NULL, "the 3rd site failed too");
    CHECK_EQ(h5sf_sites_passed(H5SF_SITE_ALLOC), 3);
    h5sf_free(a), h5sf_free(b), h5sf_free(c), h5sf_free(d), h5sf_free(e), h5sf_free(g), h5sf_free(NULL);
    CHECK_EQ(h5sf_alloc_live(), base);

    /* Kinds are counted apart; an MPI site fails with ENOMEM, a system
     * call with the armed errno. */
    long allocs = h5sf_sites_passed(H5SF_SITE_ALLOC);
    h5sf_sites_arm(H5SF_SITE_SYSCALL, 1, EIO);
    h5sf_sites_arm(H5SF_SITE_MPI, 1, EIO);
    CHECK(h5sf_site(H5SF_SITE_SYSCALL) == EIO && h5sf_site(H5SF_SITE_MPI) == ENOMEM, "errno of the kinds");
    CHECK(h5sf_site(H5SF_SITE_SYSCALL) == 0 && h5sf_sites_passed(H5SF_SITE_ALLOC) == allocs &&
              h5sf_sites_passed(H5SF_SITE_SYSCALL) == 2,
          "kinds not counted apart");
    h5sf_sites_arm(H5SF_SITE_SYSCALL, 0, 0);
    h5sf_sites_arm(H5SF_SITE_MPI, 0, 0);

    /* Threads racing through sites: exactly one of them fails. */
    pthread_t t[THREADS];
    h5sf_sites_arm(H5SF_SITE_ALLOC, EACH * THREADS / 2, 0);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, churn, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(failed_in_threads, 1);
    CHECK(h5sf_sites_passed(H5SF_SITE_ALLOC) == EACH * THREADS, "%ld sites", h5sf_sites_passed(H5SF_SITE_ALLOC));
    CHECK(h5sf_alloc_live() == base, "live %ld after the threads, base %ld", h5sf_alloc_live(), base);
    h5sf_sites_arm(H5SF_SITE_ALLOC, 0, 0);

    return t_verdict();
}
