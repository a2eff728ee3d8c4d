/*
 * slots.c -- the IOC's pool of transfer slots (H5SF_IOC_CHUNK bytes each).
 *
 * Workers receive or read a chunk of a payload into a slot; at most
 * ctx->nslots_max exist, so slots and queued messages together stay within
 * H5SF_IOC_MEMORY.  Owns the slot arrays of the context; everything here
 * runs with ctx->lock held.  Must not look at requests.
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

/* Free the idle slots (the memory goes back to the application); workers
 * make new ones on demand.  Lock held. */
void ioc_slots_trim(h5sf_ioc_ctx_t *ctx)
{
    while (ctx->nslots_free > 0) {
        h5sf_free(ctx->slots[--ctx->nslots_free]);
        ctx->nslots_made--;
    }
}

void ioc_slot_put(h5sf_ioc_ctx_t *ctx, unsigned char *p)
{
    if (!p)
        return;
    ctx->slots[ctx->nslots_free++] = p;
    uv_cond_signal(&ctx->slot_cond);
}
