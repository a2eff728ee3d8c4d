/*
 * slots.c -- the context's buffers that outlive a request: the IOC's pool
 * of transfer slots (H5SF_IOC_CHUNK bytes each) and, on the client side,
 * the write copies kept for the next write.
 *
 * Workers receive or read a chunk of a payload into a slot; at most
 * ctx->nslots_max exist, so slots and queued messages together stay within
 * H5SF_IOC_MEMORY.  A client copies a write's payload into a buffer of its
 * own (client.c); up to IOC_COPIES_BYTES of those are kept, since reusing
 * one costs no page faults.  Owns the slot and copy arrays of the context,
 * both under ctx->lock: the slot functions and ioc_copies_trim run with it
 * held, the clients' ioc_copy_take and ioc_copy_keep take it.  Must not
 * look at requests.
 */
#include <stdlib.h>
#include "internal.h"

/* A slot of H5SF_IOC_CHUNK bytes: wait for one if `wait`, else NULL when
 * none is free.  At most nslots_max exist, so slots and queued messages
 * together stay within H5SF_IOC_MEMORY.  Lock held. */
unsigned char *ioc_slot_get(h5sf_ioc_ctx_t *ctx, bool wait)
{
    for (;;) {
        if (ctx->nslots_free > 0)
            return ctx->slots[--ctx->nslots_free];
        if (ctx->nslots_made < ctx->nslots_max) {
            unsigned char *p = h5sf_malloc(H5SF_IOC_CHUNK);
            if (p)
                ctx->nslots_made++;
            return p;
        }
        if (!wait || atomic_load(&ctx->stop))
            return NULL;
        uv_cond_wait(&ctx->slot_cond, &ctx->lock);
    }
}

/* Free the idle slots and kept copies (the memory goes back to the
 * application); workers and clients make new ones on demand.  Lock held. */
void ioc_slots_trim(h5sf_ioc_ctx_t *ctx)
{
    while (ctx->nslots_free > 0) {
        h5sf_free(ctx->slots[--ctx->nslots_free]);
        ctx->nslots_made--;
    }
    ioc_copies_trim(ctx);
}

void ioc_slot_put(h5sf_ioc_ctx_t *ctx, unsigned char *p)
{
    if (!p)
        return;
    ctx->slots[ctx->nslots_free++] = p;
    uv_cond_signal(&ctx->slot_cond);
}

/* Rounded up to 64 KiB, so that writes of nearly the same size share one. */
uint64_t ioc_copy_size(uint64_t n)
{
    return n < IOC_COPY_MIN ? n : (n + IOC_COPY_MIN - 1) / IOC_COPY_MIN * IOC_COPY_MIN;
}

unsigned char *ioc_copy_take(h5sf_ioc_ctx_t *ctx, uint64_t n, uint64_t *cap)
{
    int best = -1;
    uv_mutex_lock(&ctx->lock);
    for (int i = 0; n >= IOC_COPY_MIN && i < ctx->ncopies; i++)
        if (ctx->copy_caps[i] >= n && (best < 0 || ctx->copy_caps[i] < ctx->copy_caps[best]))
            best = i;
    unsigned char *p = NULL;
    if (best >= 0) {
        p    = ctx->copies[best];
        *cap = ctx->copy_caps[best];
        ctx->copies_bytes -= *cap;
        ctx->ncopies--;
        ctx->copies[best]    = ctx->copies[ctx->ncopies];
        ctx->copy_caps[best] = ctx->copy_caps[ctx->ncopies];
    }
    uv_mutex_unlock(&ctx->lock);
    return p;
}

void ioc_copy_keep(h5sf_ioc_ctx_t *ctx, unsigned char *p, uint64_t cap)
{
    if (!p)
        return;
    uv_mutex_lock(&ctx->lock);
    bool keep = cap >= IOC_COPY_MIN && ctx->ncopies < IOC_COPIES_KEEP && ctx->copies_bytes + cap <= IOC_COPIES_BYTES;
    if (keep) {
        ctx->copies[ctx->ncopies]      = p;
        ctx->copy_caps[ctx->ncopies++] = cap;
        ctx->copies_bytes += cap;
    }
    uv_mutex_unlock(&ctx->lock);
    if (!keep)
        h5sf_free(p);
}

void ioc_copies_trim(h5sf_ioc_ctx_t *ctx)
{
    while (ctx->ncopies > 0)
        h5sf_free(ctx->copies[--ctx->ncopies]);
    ctx->copies_bytes = 0;
}
