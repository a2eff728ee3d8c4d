/*
 * payload.c -- how a request's payload is cut into MPI messages.
 *
 * The payload (the pieces' bytes, concatenated in piece order) moves in
 * chunks of H5SF_IOC_CHUNK bytes, or of a quarter of a smaller payload
 * (ioc_chunk_size); the IOC holds one chunk per buffer.  A chunk covers
 * *parts*: the pieces, cut at chunk borders.
 *
 * A chunk of a few large parts moves as one message per part.  Each is
 * contiguous at both ends, so MPI moves it in one step: a single copy with
 * a shared-memory single-copy mechanism (CMA, XPMEM, KNEM), one RDMA
 * operation on a network.  The alternative, one message with a datatype
 * over the parts, forces Open MPI's ob1 onto its pipelined protocol: the
 * sender packs fragments, the receiver unpacks them, and every fragment
 * waits for both sides to call into MPI.  A client that sleeps between
 * polls then stalls the transfer (measured: docs/performance-history.md, Figures
 * behind constants, one message per part).  A chunk of many small parts
 * (a strided selection) still
 * moves as one datatype message: thousands of messages would cost more.
 *
 * Client and IOC both derive the messages from the piece lengths in the
 * request header with these functions, so they always agree.
 */
#include "internal.h"

size_t ioc_parts(const uint64_t *lens, uint64_t count, ioc_cursor_t *c, uint64_t want, ioc_cursor_t *at, uint64_t *plen,
                 size_t cap)
{
    size_t n = 0;
    while (want > 0 && c->i < count) {
        uint64_t m = lens[c->i] - c->po;
        if (m > want)
            m = want;
        if (m) { /* empty pieces move nothing */
            if (n < cap) {
                if (at)
                    at[n] = *c;
                plen[n] = m;
            }
            n++;
        }
        want -= m;
        if ((c->po += m) == lens[c->i]) {
            c->i++;
            c->po = 0;
        }
    }
    return n;
}

uint64_t ioc_chunk_size(uint64_t total)
{
    uint64_t c = (total + IOC_PIPE_ROUNDS - 1) / IOC_PIPE_ROUNDS;
    c          = (c + IOC_SPLIT_MIN - 1) / IOC_SPLIT_MIN * IOC_SPLIT_MIN;
    if (c < IOC_PIPE_MIN)
        c = IOC_PIPE_MIN;
    return c < H5SF_IOC_CHUNK ? c : H5SF_IOC_CHUNK;
}

size_t ioc_chunk_msgs(size_t nparts, uint64_t len)
{
    return nparts >= 1 && nparts <= IOC_SPLIT_MAX && len >= (uint64_t)nparts * IOC_SPLIT_MIN ? nparts : 1;
}

size_t ioc_chunk_plan(const uint64_t *lens, uint64_t count, ioc_cursor_t *c, uint64_t len, uint64_t *mlen)
{
    size_t np = ioc_parts(lens, count, c, len, NULL, mlen, IOC_SPLIT_MAX);
    if (ioc_chunk_msgs(np, len) > 1)
        return np;
    mlen[0] = len;
    return 1;
}
