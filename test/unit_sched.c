/*
 * unit_sched.c -- the IOC scheduler against a brute-force model.
 *
 * Random streams of reads, writes and barriers arrive on one subfile while
 * random running requests finish.  Whenever the scheduler declares a request
 * runnable we check, by scanning everything that arrived earlier, that no
 * earlier conflicting request is unfinished; at the end every request must
 * have run.  A second case queues 20000 requests (no quadratic blow-up: the
 * test would take minutes instead of milliseconds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"


typedef struct {
    ioc_server_req_t r;
    int              seq;
    int              state; /* 0 waiting, 1 runnable/running, 2 done */
} node_t;

static bool conflict(const node_t *a, const node_t *b)
{
    if (a->r.barrier || b->r.barrier)
        return true;
    if (a->r.h.op == H5SF_WIRE_READ && b->r.h.op == H5SF_WIRE_READ)
        return false;
    return a->r.lo < b->r.hi && b->r.lo < a->r.hi;
}

static void became_runnable(node_t *all, int n, node_t *x)
{
    CHECK(x->state == 0, "request %d made runnable twice", x->seq);
    for (int i = 0; i < n && all[i].seq < x->seq; i++)
        if (all[i].state != 2 && conflict(&all[i], x))
            CHECK(0, "request %d runs while earlier conflicting %d is unfinished", x->seq, all[i].seq);
    x->state = 1;
}

static void run_case(int n, uint64_t space, int barrier_pct, bool check)
{
    ioc_sf_t sf;
    node_t  *all     = calloc((size_t)n, sizeof *all);
    int     *running = malloc((size_t)n * sizeof *running), nrun = 0, arrived = 0, done = 0;
    memset(&sf, 0, sizeof sf);
    for (int i = 0; i < n; i++) {
        node_t *x = &all[i];
        x->seq    = i;
        int kind  = (int)(t_rnd() % 100);
        if (kind < barrier_pct) {
            x->r.barrier = true;
            x->r.h.op    = H5SF_WIRE_TRUNCATE;
        }
        else {
            x->r.h.op = kind % 2 ? H5SF_WIRE_WRITE : H5SF_WIRE_READ;
            x->r.lo   = t_rnd() % space;
            x->r.hi   = x->r.lo + 1 + t_rnd() % (space / 8 + 1);
        }
    }
    while (done < n) {
        /* Either a new arrival or a completion, at random. */
        if (arrived < n && (nrun == 0 || t_rnd() % 2)) {
            node_t *x = &all[arrived++];
            if (ioc_sched_arrive(&sf, &x->r)) {
                if (check)
                    became_runnable(all, n, x);
                else
                    x->state = 1;
                running[nrun++] = x->seq;
            }
            continue;
        }
        CHECK(nrun > 0, "nothing runnable with %d requests outstanding (deadlock)", arrived - done);
        if (nrun == 0)
            break;
        int     k  = (int)(t_rnd() % (uint64_t)nrun);
        node_t *x  = &all[running[k]];
        running[k] = running[--nrun];
        x->state   = 2;
        done++;
        ioc_server_req_t *ready = NULL, *tail = NULL;
        ioc_sched_done(&sf, &x->r, &ready, &tail);
        for (ioc_server_req_t *r = ready; r; r = r->next) {
            node_t *y = (node_t *)r;
            if (check)
                became_runnable(all, n, y);
            else
                y->state = 1;
            running[nrun++] = y->seq;
        }
    }
    CHECK(done == n, "only %d of %d requests completed", done, n);
    CHECK(sf.active == 0 && !sf.barrier && !sf.held && !sf.root, "scheduler not empty at the end");
    for (int i = 0; i < n; i++)
        free(all[i].r.dependents);
    free(all);
    free(running);
}

/* Requests with piece lists: interleaved pieces are independent, a shared
 * byte or an unsorted list orders them. */
static void make(ioc_server_req_t *r, int op, uint64_t *offs, uint64_t *lens, uint64_t n)
{
    memset(r, 0, sizeof *r);
    r->h.op    = (uint16_t)op;
    r->h.count = n;
    r->offs    = offs;
    r->lens    = lens;
    for (uint64_t i = 0; i < n; i++)
        r->h.total += lens[i];
    ioc_req_extent(r);
}

static void pieces_case(void)
{
    /* a: [0,4) [8,12) [16,20)   b: [4,8) [12,16)   c: [11,13)   d unsorted */
    uint64_t         ao[] = {0, 8, 16}, al[] = {4, 4, 4}, bo[] = {4, 12}, bl[] = {4, 4}, co[] = {11}, cl[] = {2};
    uint64_t         dofs[] = {12, 4}, dl[] = {4, 4}, zo[] = {0, 6, 6}, zl[] = {4, 0, 2};
    ioc_server_req_t a, b, c, d, z, *ready = NULL, *tail = NULL;
    ioc_sf_t         sf;
    memset(&sf, 0, sizeof sf);
    make(&a, H5SF_WIRE_WRITE, ao, al, 3);
    make(&b, H5SF_WIRE_WRITE, bo, bl, 2);
    make(&c, H5SF_WIRE_WRITE, co, cl, 1);
    make(&d, H5SF_WIRE_WRITE, dofs, dl, 2);
    make(&z, H5SF_WIRE_WRITE, zo, zl, 3);
    CHECK(a.sorted && b.sorted && c.sorted && !d.sorted && z.sorted, "sorted flags wrong");
    CHECK(a.lo == 0 && a.hi == 20 && b.lo == 4 && b.hi == 16, "extents wrong");
    CHECK(!ioc_pieces_overlap(&a, &b) && !ioc_pieces_overlap(&b, &a), "interleaved pieces seen as overlapping");
    CHECK(ioc_pieces_overlap(&a, &c) && ioc_pieces_overlap(&c, &b), "a shared byte not seen");
    CHECK(ioc_pieces_overlap(&a, &d), "unsorted pieces must conflict conservatively");
    CHECK(ioc_pieces_overlap(&z, &b), "[6,8) of z overlaps [4,8) of b");
    CHECK(ioc_sched_arrive(&sf, &a), "a must run at once");
    CHECK(ioc_sched_arrive(&sf, &b), "b interleaves with a: must run at once");
    CHECK(!ioc_sched_arrive(&sf, &c), "c shares bytes with a and b: must wait");
    ioc_sched_done(&sf, &a, &ready, &tail);
    CHECK(!ready, "c still waits for b");
    ioc_sched_done(&sf, &b, &ready, &tail);
    CHECK(ready == &c, "c runs after a and b");
    ready = tail = NULL;
    ioc_sched_done(&sf, &c, &ready, &tail);
    CHECK(sf.active == 0, "scheduler not empty");
    free(a.dependents);
    free(b.dependents);
}

int main(void)
{
    t_start("unit_sched");
    t_rnd_seed(88172645463325252ull);
    t_max_fails = 20;
    pieces_case();
    for (int round = 0; round < 200; round++)
        run_case(200, round % 2 ? 1000 : 100000, round % 3 ? 2 : 0, true);
    run_case(20000, 1u << 30, 0, false); /* many queued: must stay fast */
    run_case(20000, 64, 0, false);       /* many overlapping */
    return t_verdict();
}
