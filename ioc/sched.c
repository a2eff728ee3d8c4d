/*
 * sched.c -- ordering of requests on one subfile.
 *
 * Rules: a request waits for every earlier active request on the same
 * subfile that shares a byte with it, unless both are reads.  Requests
 * whose extents interleave without sharing a byte (strided writes of
 * several ranks) are independent, so the workers may merge them.  Barriers
 * (truncate, size, fsync) wait for everything before them and hold back
 * everything after them.  Different subfiles never interact.
 *
 * Active requests sit in a treap keyed by their first byte and augmented
 * with the largest last byte of each subtree, so finding the overlapping
 * extents of a new request costs O(log n + overlaps) even with thousands
 * queued; each candidate's pieces are then compared (binary search in the
 * longer list; requests with unsorted pieces conflict conservatively).  Each
 * conflict becomes a dependency edge; a request runs when its count of
 * unfinished dependencies reaches zero.  Called with ctx->lock held.
 */
#include <stdlib.h>
#include "internal.h"

/* Treap priorities only need to look random.  Each context's schedulers
 * run under that context's lock, so a plain static seed shared by all
 * contexts was a data race (TSan, unit_sched_mt): the source is an atomic
 * Weyl sequence, hashed (lowbias32). */
static _Atomic uint32_t prio_weyl;
static uint32_t         next_prio(void)
{
    uint32_t x = atomic_fetch_add_explicit(&prio_weyl, 0x9E3779B9u, memory_order_relaxed);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static bool before(const ioc_server_req_t *a, const ioc_server_req_t *b)
{
    return a->lo < b->lo || (a->lo == b->lo && (uintptr_t)a < (uintptr_t)b);
}

static void fix(ioc_server_req_t *n)
{
    n->tmax = n->hi;
    if (n->tl && n->tl->tmax > n->tmax)
        n->tmax = n->tl->tmax;
    if (n->tr && n->tr->tmax > n->tmax)
        n->tmax = n->tr->tmax;
}

static ioc_server_req_t *rot_right(ioc_server_req_t *n)
{
    ioc_server_req_t *l = n->tl;
    n->tl               = l->tr;
    l->tr               = n;
    fix(n);
    fix(l);
    return l;
}

static ioc_server_req_t *rot_left(ioc_server_req_t *n)
{
    ioc_server_req_t *r = n->tr;
    n->tr               = r->tl;
    r->tl               = n;
    fix(n);
    fix(r);
    return r;
}

static ioc_server_req_t *insert(ioc_server_req_t *t, ioc_server_req_t *r)
{
    if (!t) {
        r->tl = r->tr = NULL;
        fix(r);
        return r;
    }
    if (before(r, t)) {
        t->tl = insert(t->tl, r);
        if (t->tl->prio > t->prio)
            t = rot_right(t);
    }
    else {
        t->tr = insert(t->tr, r);
        if (t->tr->prio > t->prio)
            t = rot_left(t);
    }
    fix(t);
    return t;
}

static ioc_server_req_t *erase(ioc_server_req_t *t, ioc_server_req_t *r)
{
    if (!t)
        return NULL;
    if (t == r) {
        if (!t->tl)
            return t->tr;
        if (!t->tr)
            return t->tl;
        if (t->tl->prio > t->tr->prio) {
            t     = rot_right(t);
            t->tr = erase(t->tr, r);
        }
        else {
            t     = rot_left(t);
            t->tl = erase(t->tl, r);
        }
    }
    else if (before(r, t))
        t->tl = erase(t->tl, r);
    else
        t->tr = erase(t->tr, r);
    fix(t);
    return t;
}

static void add_dependent(ioc_server_req_t *q, ioc_server_req_t *r)
{
    if (q->ndependents == q->capdependents) {
        size_t             cap = q->capdependents ? 2 * q->capdependents : 4;
        ioc_server_req_t **p   = h5sf_realloc(q->dependents, cap * sizeof *p);
        if (!p)
            abort(); /* a lost edge would reorder writes: refuse to go on */
        q->dependents    = p;
        q->capdependents = cap;
    }
    q->dependents[q->ndependents++] = r;
    r->ndeps++;
}

/* Every active request overlapping [r->lo, r->hi) that conflicts with r. */
static void link_overlaps(ioc_server_req_t *t, ioc_server_req_t *r)
{
    if (!t || t->tmax <= r->lo)
        return;
    link_overlaps(t->tl, r);
    if (t->lo >= r->hi)
        return; /* t and its right subtree start at or after r's end */
    /* Extents overlap often without any shared byte (interleaved strided
     * writes of several ranks): only a real overlap orders the two. */
    if (t->hi > r->lo && (t->h.op == H5SF_WIRE_WRITE || r->h.op == H5SF_WIRE_WRITE) && ioc_pieces_overlap(t, r))
        add_dependent(t, r);
    link_overlaps(t->tr, r);
}

/* First piece of b (sorted) ending after `off`: piece ends are ascending. */
static uint64_t first_ending_after(const ioc_server_req_t *b, uint64_t off)
{
    uint64_t lo = 0, hi = b->h.count;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (b->offs[mid] + b->lens[mid] > off)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

bool ioc_pieces_overlap(const ioc_server_req_t *a, const ioc_server_req_t *b)
{
    if (!a->sorted || !b->sorted)
        return true;
    if (a->h.count > b->h.count) {
        const ioc_server_req_t *t = a;
        a                         = b;
        b                         = t;
    }
    for (uint64_t i = 0; i < a->h.count; i++) {
        uint64_t lo = a->offs[i], hi = lo + a->lens[i];
        if (hi == lo)
            continue;
        for (uint64_t j = first_ending_after(b, lo); j < b->h.count && b->offs[j] < hi; j++)
            if (b->lens[j])
                return true;
    }
    return false;
}


static void push(ioc_server_req_t **head, ioc_server_req_t **tail, ioc_server_req_t *r)
{
    r->next = NULL;
    if (*tail)
        (*tail)->next = r;
    else
        *head = r;
    *tail = r;
}

/* Admit r (nothing held before it); true if it may run now. */
static bool admit(ioc_sf_t *sf, ioc_server_req_t *r)
{
    r->ndeps = 0;
    if (r->barrier) {
        sf->barrier = r;
        return sf->active == 0;
    }
    if (r->hi > r->lo)
        link_overlaps(sf->root, r);
    r->prio  = next_prio();
    sf->root = insert(sf->root, r);
    sf->active++;
    return r->ndeps == 0;
}

bool ioc_sched_arrive(ioc_sf_t *sf, ioc_server_req_t *r)
{
    if (sf->barrier || sf->held) {
        push(&sf->held, &sf->held_tail, r);
        return false;
    }
    return admit(sf, r);
}

void ioc_sched_done(ioc_sf_t *sf, ioc_server_req_t *r, ioc_server_req_t **ready, ioc_server_req_t **ready_tail)
{
    if (r->barrier) {
        sf->barrier = NULL;
        /* Let the held requests in, in arrival order, up to the next barrier. */
        while (sf->held && !sf->barrier) {
            ioc_server_req_t *h = sf->held;
            sf->held            = h->next;
            if (!sf->held)
                sf->held_tail = NULL;
            if (admit(sf, h))
                push(ready, ready_tail, h);
        }
        return;
    }
    sf->root = erase(sf->root, r);
    sf->active--;
    for (size_t i = 0; i < r->ndependents; i++)
        if (--r->dependents[i]->ndeps == 0)
            push(ready, ready_tail, r->dependents[i]);
    r->ndependents = 0;
    if (sf->active == 0 && sf->barrier)
        push(ready, ready_tail, sf->barrier);
}
