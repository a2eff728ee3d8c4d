/*
 * fault.c -- test-only fault injection, inert unless H5SF_FAULT is set.
 *
 *   H5SF_FAULT="op=pwrite,errno=EIO,rank=1,after=2,count=1"
 *
 *   op     open | pwrite | pread | fsync | stall | hang | stuck | overlap |
 *          nomem-topo | nomem-plan | nomem-ctx (an allocation at open fails:
 *          choosing the IOCs, the stripe plan, a new IOC context) |
 *          nomem-accept (an allocation fails while the IOC's progress
 *          thread accepts a request: the IOC refuses it)
 *   errno  EIO | ENOSPC | EINTR | EACCES | short   (short: half a transfer)
 *   rank   only the IOC with this rank (in the file's communicator); default all
 *   after  let this many matching calls pass first (default 0)
 *   count  inject this many times (default: always)
 *   ms     for stall: delay every request by this many milliseconds;
 *          for stuck: how long a pwrite blocks (default an hour);
 *          for overlap: how long each subfile transfer h5sf runs itself
 *          together with others waits for all of them to start (vfd/pool.c)
 *
 * hang never answers but lets the daemon stop; stuck blocks a worker in its
 * pwrite as a file system that stopped answering does, deaf to the stop.
 *
 * The tests use it to prove that a failing disk yields an error on every
 * rank and never a hang.  Parsing is forgiving on purpose: a malformed value
 * disables injection and says so on stderr, because this is not user input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

static struct {
    bool        parsed, on;
    char        op[16];
    int         err, rank;
    long        after, count;
    long        ms;
    atomic_long seen;
} F = {.rank = -1, .count = -1};
static uv_once_t once = UV_ONCE_INIT;

static int errno_by_name(const char *s)
{
    static const struct { const char *n; int v; } t[] = {
        {"EIO", EIO}, {"ENOSPC", ENOSPC}, {"EINTR", EINTR}, {"EACCES", EACCES}, {"short", H5SF_FAULT_SHORT}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].n))
            return t[i].v;
    return 0;
}

static void parse(void)
{
    const char *s = getenv("H5SF_FAULT");
    char        buf[256], *save = NULL;
    F.parsed = true;
    if (!s || !*s)
        return;
    snprintf(buf, sizeof buf, "%s", s);
    F.err = EIO;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            goto bad;
        *eq++ = '\0';
        if (!strcmp(tok, "op"))
            snprintf(F.op, sizeof F.op, "%s", eq);
        else if (!strcmp(tok, "errno")) {
            if (!(F.err = errno_by_name(eq)))
                goto bad;
        }
        else if (!strcmp(tok, "rank"))
            F.rank = atoi(eq);
        else if (!strcmp(tok, "after"))
            F.after = atol(eq);
        else if (!strcmp(tok, "count"))
            F.count = atol(eq);
        else if (!strcmp(tok, "ms"))
            F.ms = atol(eq);
        else
            goto bad;
    }
    F.on = F.op[0] != '\0';
    return;
bad:
    fprintf(stderr, "h5sf: ignoring malformed H5SF_FAULT=\"%s\"\n", s);
}

static void init(void) { parse(); }

int ioc_fault(const char *op, int ioc_rank)
{
    uv_once(&once, init);
    if (!F.on || strcmp(F.op, op) || (F.rank >= 0 && F.rank != ioc_rank))
        return 0;
    long n = atomic_fetch_add(&F.seen, 1);
    if (n < F.after || (F.count >= 0 && n >= F.after + F.count))
        return 0;
    return F.err;
}

int h5sf_fault(const char *op, int rank) { return ioc_fault(op, rank); }

long h5sf_fault_ms(const char *op)
{
    uv_once(&once, init);
    return F.on && !strcmp(F.op, op) ? F.ms : -1;
}

bool ioc_fault_on(void)
{
    uv_once(&once, init);
    return F.on;
}

void ioc_fault_delay(h5sf_ioc_ctx_t *ctx)
{
    uv_once(&once, init);
    if (!F.on || (F.rank >= 0 && F.rank != ctx->rank))
        return;
    /* Honour after/count for stall and hang too (ioc_fault does the
     * counting), so a test can let the open pass and hang a write. */
    if ((!strcmp(F.op, "stall") || !strcmp(F.op, "hang")) && !ioc_fault(F.op, ctx->rank))
        return;
    if (!strcmp(F.op, "stall") && F.ms > 0) {
        struct timespec ts = {F.ms / 1000, (F.ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    else if (!strcmp(F.op, "hang")) {
        /* Never answer, but let the daemon stop at close or finalize. */
        while (!atomic_load(&ctx->stop)) {
            struct timespec ts = {0, 10 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
}

void ioc_fault_stuck(h5sf_ioc_ctx_t *ctx)
{
    uv_once(&once, init);
    if (!F.on || strcmp(F.op, "stuck") || !ioc_fault("stuck", ctx->rank))
        return;
    long            ms = F.ms > 0 ? F.ms : 3600L * 1000;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}
