/*
 * stripe.c -- cutting logical extents into per-subfile pieces.
 *
 * Pure arithmetic: no I/O, no MPI, no HDF5.  See stripe.h for the layout.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "stripe.h"

uint64_t sf_subfile_size(uint64_t eof, uint64_t S, int N, int s)
{
    if (eof == 0)
        return 0;
    uint64_t last = (eof - 1) / S;             /* last logical stripe        */
    uint64_t rows = last / (uint64_t)N;        /* full rows before last's    */
    int      col  = (int)(last % (uint64_t)N); /* subfile of the last stripe */
    if (s < col)
        return (rows + 1) * S;
    if (s > col)
        return rows * S;
    return rows * S + (eof - 1) % S + 1;
}

uint64_t sf_logical_eof(const uint64_t *sizes, uint64_t S, int N)
{
    uint64_t eof = 0;
    for (int s = 0; s < N; s++) {
        if (sizes[s] == 0)
            continue;
        uint64_t row  = (sizes[s] - 1) / S;
        uint64_t last = (row * (uint64_t)N + (uint64_t)s) * S + (sizes[s] - 1) % S + 1;
        if (last > eof)
            eof = last;
    }
    return eof;
}

uint64_t sf_complete_eof(const uint64_t *sizes, uint64_t S, int N)
{
    uint64_t eof = sf_logical_eof(sizes, S, N);
    for (int s = 0; s < N; s++) {
        /* Subfile s ends inside (or at the start of) its row-th stripe. */
        uint64_t row = sizes[s] / S, end = (row * (uint64_t)N + (uint64_t)s) * S + sizes[s] % S;
        if (end < eof)
            eof = end;
    }
    return eof;
}

int sf_plan_init(sf_plan_t *p, uint64_t stripe_size, int nsubfiles)
{
    memset(p, 0, sizeof *p);
    if (stripe_size == 0 || nsubfiles <= 0)
        return -1;
    p->S       = stripe_size;
    p->N       = nsubfiles;
    p->lists   = h5sf_calloc((size_t)nsubfiles, sizeof *p->lists);
    p->touched = h5sf_malloc((size_t)nsubfiles * sizeof *p->touched);
    if (!p->lists || !p->touched) {
        sf_plan_free(p);
        return -1;
    }
    return 0;
}

void sf_plan_reset(sf_plan_t *p)
{
    for (int i = 0; i < p->ntouched; i++) {
        sf_list_t *l = &p->lists[p->touched[i]];
        l->n         = 0;
        l->bytes     = 0;
    }
    p->ntouched  = 0;
    p->pieces_in = 0;
    p->stored    = 0;
}

void sf_plan_trim(sf_plan_t *p, uint64_t keep)
{
    uint64_t cap = 0;
    for (int i = 0; i < p->N; i++)
        cap += p->lists[i].cap;
    if (cap <= keep)
        return;
    for (int i = 0; i < p->N; i++) {
        h5sf_free(p->lists[i].v);
        p->lists[i].v   = NULL;
        p->lists[i].cap = 0;
    }
}

void sf_plan_free(sf_plan_t *p)
{
    if (p->lists)
        for (int i = 0; i < p->N; i++)
            h5sf_free(p->lists[i].v);
    h5sf_free(p->lists);
    h5sf_free(p->touched);
    memset(p, 0, sizeof *p);
}

static int list_push(sf_plan_t *p, int s, uint64_t off, uint64_t len, uint64_t mem)
{
    sf_list_t *l = &p->lists[s];
    if (l->n == 0)
        p->touched[p->ntouched++] = s;
    else {
        /* Merge when both the subfile range and the memory range continue. */
        sf_piece_t *last = &l->v[l->n - 1];
        if (last->off + last->len == off && last->mem + last->len == mem) {
            last->len += len;
            l->bytes += len;
            return 0;
        }
    }
    if (l->n == l->cap) {
        size_t      cap = l->cap ? l->cap * 2 : 16;
        sf_piece_t *v   = h5sf_realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v   = v;
        l->cap = cap;
    }
    l->v[l->n++] = (sf_piece_t){off, len, mem};
    l->bytes += len;
    p->stored++;
    return 0;
}

int sf_plan_add(sf_plan_t *p, uint64_t addr, uint64_t len, uint64_t mem)
{
    const uint64_t S = p->S;
    p->pieces_in++;
    while (len > 0) {
        uint64_t in_stripe = S - addr % S;
        uint64_t n         = len < in_stripe ? len : in_stripe;
        int      s         = sf_subfile_of(addr, S, p->N);
        /* With one subfile the subfile offset equals the logical address and
         * long extents stay whole; otherwise each stripe is its own piece. */
        if (p->N == 1)
            n = len;
        if (list_push(p, s, sf_subfile_off(addr, S, p->N), n, mem) < 0)
            return -1;
        addr += n;
        mem += n;
        len -= n;
    }
    return 0;
}

static int piece_cmp(const void *a, const void *b)
{
    const sf_piece_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

void sf_plan_sort(sf_plan_t *p)
{
    qsort(p->touched, (size_t)p->ntouched, sizeof *p->touched, int_cmp);
    for (int i = 0; i < p->ntouched; i++) {
        sf_list_t *l      = &p->lists[p->touched[i]];
        size_t     k      = 0;
        int        sorted = 1;
        for (size_t j = 1; j < l->n && sorted; j++)
            sorted = l->v[j - 1].off <= l->v[j].off;
        if (!sorted)
            qsort(l->v, l->n, sizeof *l->v, piece_cmp);
        for (size_t j = 1; j < l->n; j++) {
            sf_piece_t *a = &l->v[k], *b = &l->v[j];
            if (a->off + a->len == b->off && a->mem + a->len == b->mem)
                a->len += b->len;
            else
                l->v[++k] = *b;
        }
        if (l->n) {
            p->stored -= l->n - (k + 1);
            l->n = k + 1;
        }
    }
}

uint64_t sf_list_end(const sf_list_t *l)
{
    uint64_t end = 0;
    for (size_t j = 0; j < l->n; j++)
        if (l->v[j].off + l->v[j].len > end)
            end = l->v[j].off + l->v[j].len;
    return end;
}

uint64_t sf_plan_pieces_out(const sf_plan_t *p)
{
    uint64_t n = 0;
    for (int i = 0; i < p->ntouched; i++)
        n += p->lists[p->touched[i]].n;
    return n;
}
