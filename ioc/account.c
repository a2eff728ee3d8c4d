/*
 * account.c -- the stage account of the IOC channel (account.h): relaxed
 * atomic counters per stage, process-wide.  Owns nothing else; called by
 * the client (client.c), the progress thread (progress.c), the workers
 * (worker.c, run.c) and the channel (vfd/ioc_channel.c), one line each.
 *
 * Invariant: with accounting off no counter moves, and a hook costs one
 * relaxed load (ioc_acct_now returns 0, and a stop of 0 is ignored).
 */
#include <stdatomic.h>
#include <string.h>
#include "account.h"
#include "internal.h"
#include "../common/settings.h"

static atomic_int       acct_on = -1; /* -1: H5SF_STATS not read yet */
static _Atomic uint64_t acct_ns[IOC_ACCT_STAGES], acct_count[IOC_ACCT_STAGES], acct_bytes[IOC_ACCT_STAGES];
static _Atomic uint64_t acct_msgs;

static bool on(void)
{
    int v = atomic_load_explicit(&acct_on, memory_order_relaxed);
    if (v < 0) { /* first use: H5SF_STATS=stages turns it on */
        const char *s = h5sf_var(H5SF_VAR_STATS);
        v             = s && strcmp(s, "stages") == 0;
        atomic_store(&acct_on, v);
    }
    return v > 0;
}

uint64_t ioc_acct_now(void) { return on() ? ioc_now_ns() : 0; }

void ioc_acct_add(int stage, uint64_t ns, uint64_t bytes)
{
    if (!on() || stage < 0 || stage >= IOC_ACCT_STAGES)
        return;
    atomic_fetch_add_explicit(&acct_ns[stage], ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&acct_count[stage], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&acct_bytes[stage], bytes, memory_order_relaxed);
}

/* t0 may be a time taken whether or not accounting is on. */
void ioc_acct_stop(int stage, uint64_t t0, uint64_t bytes)
{
    if (t0 && on())
        ioc_acct_add(stage, ioc_now_ns() - t0, bytes);
}

uint64_t ioc_acct_lap(int stage, uint64_t t0, uint64_t bytes)
{
    if (!t0 || !on())
        return 0;
    uint64_t now = ioc_now_ns();
    ioc_acct_add(stage, now - t0, bytes);
    return now;
}

void ioc_acct_sent(uint64_t t0, uint64_t bytes, uint64_t msgs)
{
    if (!t0 || !on())
        return;
    ioc_acct_stop(IOC_ACCT_POST, t0, bytes);
    atomic_fetch_add_explicit(&acct_msgs, msgs, memory_order_relaxed);
}

void ioc_acct_enable(bool enable) { atomic_store(&acct_on, enable ? 1 : 0); }

void ioc_acct_get(ioc_acct_t *out, bool reset)
{
    for (int s = 0; s < IOC_ACCT_STAGES; s++) {
        out->ns[s]    = reset ? atomic_exchange(&acct_ns[s], 0) : atomic_load(&acct_ns[s]);
        out->count[s] = reset ? atomic_exchange(&acct_count[s], 0) : atomic_load(&acct_count[s]);
        out->bytes[s] = reset ? atomic_exchange(&acct_bytes[s], 0) : atomic_load(&acct_bytes[s]);
    }
    out->messages = reset ? atomic_exchange(&acct_msgs, 0) : atomic_load(&acct_msgs);
}
