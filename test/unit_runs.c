/* unit_runs -- the run-cutter (common/runs.c) against a byte-stream model:
 * every byte of every piece not skipped lands in exactly one run, in
 * order, at its subfile offset and memory address; runs are as long as
 * contiguity and H5SF_SYSIO_BATCH allow.  Memory addresses are never
 * dereferenced, so pieces of terabytes cost nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runs.h"
#include "h5sf_test.h"

#define NMAX 5000

typedef struct {
    h5sf_run_piece_t v[NMAX];
    int              owner[NMAX]; /* the member a piece belongs to */
    bool             failed[8];
    size_t           n;
} list_t;

static bool get(void *arg, size_t i, h5sf_run_piece_t *p)
{
    const list_t *l = arg;
    *p              = l->v[i];
    return !l->failed[l->owner[i]];
}

/* The model's cursor: piece i, po bytes done; past empty and skipped ones. */
static void settle(const list_t *l, size_t *i, uint64_t *po)
{
    while (*i < l->n && (l->failed[l->owner[*i]] || l->v[*i].len == *po)) {
        (*i)++;
        *po = 0;
    }
}

/* Cut l into runs, checking each against the model; fail_every > 0: after
 * every fail_every-th run, the members of its pieces fail (as ioc/run.c
 * does when a pwritev fails).  Returns the number of runs. */
static size_t check_list(list_t *l, int fail_every, const char *what)
{
    h5sf_runs_t *r = malloc(sizeof *r);
    size_t       i = 0, runs = 0;
    uint64_t     po = 0;
    h5sf_runs_init(r, l->n, get, l);
    for (;;) {
        settle(l, &i, &po);
        bool more = h5sf_runs_next(r);
        CHECK(more == (i < l->n), "%s: a run when the model has none, or none when it has one (run %zu)", what, runs);
        if (!more || i >= l->n)
            break;
        CHECK(r->first == i, "%s: run %zu starts at piece %zu, the model at %zu", what, runs, r->first, i);
        CHECK_EQ(r->off, l->v[i].off + po);
        uint64_t fpos = r->off, sum = 0;
        CHECK(r->niov >= 1 && r->niov <= H5SF_SYSIO_BATCH, "%s: %d iovecs", what, r->niov);
        for (int k = 0; k < r->niov; k++) {
            settle(l, &i, &po);
            CHECK(i < l->n, "%s: iovec past the last piece", what);
            if (i >= l->n)
                break;
            const h5sf_run_piece_t *p = &l->v[i];
            CHECK(p->off + po == fpos, "%s: run %zu iovec %d not contiguous in the subfile", what, runs, k);
            CHECK((char *)r->iov[k].iov_base == (char *)p->mem + po, "%s: run %zu iovec %d at the wrong address", what,
                  runs, k);
            CHECK(r->iov[k].iov_len > 0 && r->iov[k].iov_len <= H5SF_SYSIO_LEN_MAX && r->iov[k].iov_len <= p->len - po,
                  "%s: run %zu iovec %d of %zu bytes", what, runs, k, r->iov[k].iov_len);
            fpos += r->iov[k].iov_len;
            sum += r->iov[k].iov_len;
            po += r->iov[k].iov_len;
            if (po == p->len) { /* on, past empty pieces the run took too */
                i++;
                po = 0;
                while (i < l->n && l->v[i].len == 0 && l->v[i].off == fpos && !l->failed[l->owner[i]])
                    i++;
            }
        }
        CHECK_EQ(r->len, sum);
        CHECK(r->last >= r->first && r->last <= (po ? i : i - 1), "%s: run %zu last piece %zu", what, runs, r->last);
        /* Longest possible: it ends at the iovec limit or where the next
         * piece is skipped or not contiguous. */
        if (r->niov < H5SF_SYSIO_BATCH && i < l->n && !l->failed[l->owner[i]])
            CHECK(l->v[i].off + po != r->off + r->len, "%s: run %zu ends before contiguous piece %zu", what, runs, i);
        runs++;
        if (fail_every > 0 && runs % (size_t)fail_every == 0)
            for (size_t q = r->first; q <= r->last; q++)
                l->failed[l->owner[q]] = true;
    }
    free(r);
    return runs;
}

static list_t L;

static void reset(void) { memset(&L, 0, sizeof L); }

static void add(uint64_t off, uint64_t len, uintptr_t mem, int owner)
{
    L.v[L.n].off   = off;
    L.v[L.n].len   = len;
    L.v[L.n].mem   = (void *)mem;
    L.owner[L.n++] = owner;
}

int main(void)
{
    t_start("unit_runs");

    /* Contiguous in the subfile and in memory: one run per 1024 pieces. */
    reset();
    for (uint64_t k = 0; k < 3000; k++)
        add(10 + 4 * k, 4, 0x100000 + 4 * k, 0);
    CHECK_EQ(check_list(&L, 0, "contiguous"), 3);

    /* A gap in the subfile ends a run; one in memory does not. */
    reset();
    add(0, 8, 0x1000, 0);
    add(8, 8, 0x9000, 0);
    add(20, 8, 0x9008, 0);
    CHECK_EQ(check_list(&L, 0, "gaps"), 2);

    /* Pieces past H5SF_SYSIO_LEN_MAX split into iovecs; one past 1024 of
     * them fills a run and the next resumes inside it. */
    reset();
    add(0, 3 * H5SF_SYSIO_LEN_MAX / 2, 0x10000, 0);
    add(3 * H5SF_SYSIO_LEN_MAX / 2, 1100 * H5SF_SYSIO_LEN_MAX, 0x10000 + 3 * H5SF_SYSIO_LEN_MAX / 2, 0);
    add(1200 * H5SF_SYSIO_LEN_MAX, 5, 0x1000, 0);
    CHECK_EQ(check_list(&L, 0, "long"), 3);

    /* Empty pieces, skipped pieces, none at all. */
    reset();
    add(0, 0, 0x1000, 0);
    add(0, 4, 0x1000, 1);
    add(4, 0, 0x2000, 0);
    add(4, 4, 0x1004, 2);
    CHECK_EQ(check_list(&L, 0, "empty"), 1);
    L.failed[1] = true;
    CHECK_EQ(check_list(&L, 0, "one skipped"), 1);
    L.failed[2] = true;
    CHECK_EQ(check_list(&L, 0, "all skipped"), 0);
    reset();
    CHECK_EQ(check_list(&L, 0, "none"), 0);

    /* Random lists of several members' pieces, members failing as they go. */
    t_rnd_seed(50);
    for (int iter = 0; iter < 300; iter++) {
        reset();
        uint64_t off = t_rnd_below(100);
        size_t   n   = 1 + (size_t)t_rnd_below(iter % 10 == 0 ? NMAX : 200);
        for (size_t k = 0; k < n; k++) {
            uint64_t len = t_rnd_below(6), gap = t_rnd_below(4) == 0 ? t_rnd_below(3) : 0;
            add(off, len, 0x100000 + 8 * (uintptr_t)k, (int)t_rnd_below(8));
            off += len + gap;
        }
        check_list(&L, iter % 3 == 0 ? 0 : 1 + (int)t_rnd_below(5), "random");
    }
    return t_verdict();
}
