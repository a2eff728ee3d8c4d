/*
 * unit_stopslot.c -- a request the IOC takes after its context began to
 * stop, with no transfer buffer free: the answer says the IOC is stopping,
 * not that memory ran out (ioc/merge.c, ioc_merge_take; ioc/slots.c waits
 * for a buffer only while the context runs).  One context without MPI
 * (ioc_ctx_new: rank 0 of 1), no threads.
 */
#include <errno.h>
#include <string.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"

int main(void)
{
    t_start("unit_stopslot");
    h5sf_errbuf_t   e   = {0};
    h5sf_ioc_ctx_t *ctx = ioc_ctx_new(0, 1, 5, &e);
    VRFY(ctx, "ioc_ctx_new: %s", e.msg);
    ioc_server_req_t r = {0}; /* a remote write whose payload needs a buffer */
    r.h.op             = H5SF_WIRE_WRITE;
    r.h.total          = (uint64_t)1 << 20;
    member_t mb[BATCH_MAX];
    uv_mutex_lock(&ctx->lock);
    ctx->nslots_max = ctx->nslots_made; /* every buffer in use elsewhere */
    atomic_store(&ctx->stop, true);
    int nm = ioc_merge_take(ctx, mb, &r);
    uv_mutex_unlock(&ctx->lock);
    CHECK(nm == 1 && mb[0].failed, "the request was not failed (%d members)", nm);
    CHECK(mb[0].rep.status == ECANCELED, "status %d, not ECANCELED", mb[0].rep.status);
    CHECK(strstr(mb[0].rep.msg, "is stopping") && !strstr(mb[0].rep.msg, "memory"), "the answer: %s", mb[0].rep.msg);
    ioc_ctx_free(ctx, false);
    return t_verdict();
}
