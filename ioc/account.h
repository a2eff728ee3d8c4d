/*
 * account.h -- the stage account of the IOC channel: time, entries and
 * bytes of each stage a request passes through, on the client and on the
 * IOC, summed over every thread of this process and every file.
 *
 * Off unless H5SF_STATS=stages or ioc_acct_enable(true); off, a hook costs
 * one relaxed atomic load.  Process-wide on purpose: the IOC's stages run
 * on other ranks' threads, and a benchmark reduces every rank's account
 * around one call (tools/bench/h5sf-bench.c --account).
 */
#ifndef H5SF_IOC_ACCOUNT_H
#define H5SF_IOC_ACCOUNT_H
#include <stdbool.h>
#include <stdint.h>

/* Same order and meaning as H5FD_h5sf_stage_t in include/h5sf.h. */
enum {
    IOC_ACCT_CALL,    /* client: one subfile vector call of the IOC channel, post to reply */
    IOC_ACCT_PACK,    /* client: payload copy / inline copy / piece list encoding    */
    IOC_ACCT_POST,    /* client: posting header, payload and reply to MPI           */
    IOC_ACCT_WAIT,    /* client: waiting for the reply and the payload (round trip)  */
    IOC_ACCT_HEADER,  /* IOC progress thread: receiving a request header            */
    IOC_ACCT_QUEUE,   /* IOC: from arrival to a worker taking the request           */
    IOC_ACCT_PAYLOAD, /* IOC worker: waiting for payload chunks to arrive / leave   */
    IOC_ACCT_IO,      /* IOC worker: pwritev/preadv                                 */
    IOC_ACCT_REPLY,   /* IOC worker: sending the reply                              */
    IOC_ACCT_STAGES
};

typedef struct ioc_acct {
    uint64_t ns[IOC_ACCT_STAGES], count[IOC_ACCT_STAGES], bytes[IOC_ACCT_STAGES];
    uint64_t messages; /* MPI messages of requests to other ranks' IOCs, both ways */
} ioc_acct_t;

/* A stage's start: 0 when accounting is off (its stop then does nothing). */
uint64_t ioc_acct_now(void);
/* End of a stage that began at t0 (ioc_acct_now), moving `bytes`. */
void ioc_acct_stop(int stage, uint64_t t0, uint64_t bytes);
/* As ioc_acct_stop, and the start of the next stage (0 when off). */
uint64_t ioc_acct_lap(int stage, uint64_t t0, uint64_t bytes);
/* The client's POST stage from t0: `bytes` of payload in `msgs` MPI messages
 * (header, payload parts, reply). */
void ioc_acct_sent(uint64_t t0, uint64_t bytes, uint64_t msgs);
/* A stage timed elsewhere: ns spent, `bytes` moved. */
void ioc_acct_add(int stage, uint64_t ns, uint64_t bytes);
void ioc_acct_enable(bool on);
/* This process's account since the last reset; reset: zero it after. */
void ioc_acct_get(ioc_acct_t *out, bool reset);
#endif
