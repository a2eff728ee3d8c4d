/*
 * sched.c -- ordering of requests on one subfile.
 *
 * Rules: a request waits for every earlier active request on the same
 * subfile whose extent overlaps it, unless both are reads.  Barriers
 * (truncate, size, fsync) wait for everything before them and hold back
 * everything after them.  Different subfiles never interact.
 *
 * Active requests sit in a treap keyed by their first byte and augmented
 * with the largest last byte of each subtree, so finding the overlaps of a
 * new request costs O(log n + overlaps) even with thousands queued.  Each
 * conflict becomes a dependency edge; a request runs when its count of
 * unfinished dependencies reaches zero.  Called with ctx->lock held.
 */
#include <stdlib.h>
#include "internal.h"

static uint32_t prio_seed = 2463534242u;
static uint32_t next_prio(void)
{
    prio_seed ^= prio_seed << 13;
    prio_seed ^= prio_seed >> 17;
    prio_seed ^= prio_seed << 5;
    return prio_seed;
}

static bool before(const ioc_req_t *a, const ioc_req_t *b)
{
    return a->lo < b->lo || (a->lo == b->lo && (uintptr_t)a < (uintptr_t)b);
}

static void fix(ioc_req_t *n)
{
    n->tmax = n->hi;
    if (n->tl && n->tl->tmax > n->tmax)
        n->tmax = n->tl->tmax;
    if (n->tr && n->tr->tmax > n->tmax)
        n->tmax = n->tr->tmax;
}

static ioc_req_t *rot_right(ioc_req_t *n)
{
    ioc_req_t *l = n->tl;
    n->tl        = l->tr;
    l->tr        = n;
    fix(n);
    fix(l);
    return l;
}

static ioc_req_t *rot_left(ioc_req_t *n)
{
    ioc_req_t *r = n->tr;
    n->tr        = r->tl;
    r->tl        = n;
    fix(n);
    fix(r);
    return r;
}

static ioc_req_t *insert(ioc_req_t *t, ioc_req_t *r)
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

static ioc_req_t *erase(ioc_req_t *t, ioc_req_t *r)
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

static void add_dependent(ioc_req_t *q, ioc_req_t *r)
{
    if (q->ndependents == q->capdependents) {
        size_t      cap = q->capdependents ? 2 * q->capdependents : 4;
        ioc_req_t **p   = realloc(q->dependents, cap * sizeof *p);
        if (!p)
            abort(); /* a lost edge would reorder writes: refuse to go on */
        q->dependents    = p;
        q->capdependents = cap;
    }
    q->dependents[q->ndependents++] = r;
    r->ndeps++;
}

/* Every active request overlapping [r->lo, r->hi) that conflicts with r. */
static void link_overlaps(ioc_req_t *t, ioc_req_t *r)
{
    if (!t || t->tmax <= r->lo)
        return;
    link_overlaps(t->tl, r);
    if (t->lo >= r->hi)
        return; /* t and its right subtree start at or after r's end */
    if (t->hi > r->lo && (t->h.op == H5SF_WIRE_WRITE || r->h.op == H5SF_WIRE_WRITE))
        add_dependent(t, r);
    link_overlaps(t->tr, r);
}

static void push(ioc_req_t **head, ioc_req_t **tail, ioc_req_t *r)
{
    r->next = NULL;
    if (*tail)
        (*tail)->next = r;
    else
        *head = r;
    *tail = r;
}

/* Admit r (nothing held before it); true if it may run now. */
static bool admit(ioc_sf_t *sf, ioc_req_t *r)
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

bool ioc_sched_arrive(ioc_sf_t *sf, ioc_req_t *r)
{
    if (sf->barrier || sf->held) {
        push(&sf->held, &sf->held_tail, r);
        return false;
    }
    return admit(sf, r);
}

void ioc_sched_done(ioc_sf_t *sf, ioc_req_t *r, ioc_req_t **ready, ioc_req_t **ready_tail)
{
    if (r->barrier) {
        sf->barrier = NULL;
        /* Let the held requests in, in arrival order, up to the next barrier. */
        while (sf->held && !sf->barrier) {
            ioc_req_t *h = sf->held;
            sf->held     = h->next;
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
