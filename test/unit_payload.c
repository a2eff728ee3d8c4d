/*
 * unit_payload.c -- how payload chunks are cut into parts and messages
 * (ioc/payload.c), checked against a byte-by-byte model: every payload
 * byte belongs to exactly one part, parts never cross a piece or a chunk
 * border, and the cursor ends where the model says, whatever the cap.
 * And the datatypes over a client's pieces (ioc/dtype.c): MPI_Pack through
 * them gives the pieces' bytes in order, and pieces that follow each other
 * in memory become a plain contiguous message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../ioc/internal.h"
#include "h5sf_test.h"


#define NP   40
#define MAXB (NP * 64)

/* One random piece list (some pieces empty) cut into chunks of `chunk`
 * bytes, each chunk walked with ioc_parts() and compared with the model. */
static void one_list(uint64_t chunk, size_t cap)
{
    uint64_t lens[NP], total = 0;
    size_t   n = 1 + t_rnd() % NP;
    /* Model: payload byte b is byte pof[b] of piece pix[b]. */
    static uint64_t pix[MAXB], pof[MAXB];
    for (size_t i = 0; i < n; i++) {
        lens[i] = t_rnd() % 4 == 0 ? 0 : t_rnd() % 64;
        for (uint64_t j = 0; j < lens[i]; j++, total++) {
            pix[total] = i;
            pof[total] = j;
        }
    }
    ioc_cursor_t c = {0, 0};
    for (uint64_t start = 0; start < total; start += chunk) {
        uint64_t     want = total - start < chunk ? total - start : chunk;
        ioc_cursor_t at[NP + 1];
        uint64_t     plen[NP + 1];
        size_t       np = ioc_parts(lens, n, &c, want, at, plen, cap);
        /* Expected parts: maximal runs of the chunk's bytes in one piece. */
        size_t   want_np = 0;
        uint64_t b = start, sum = 0;
        while (b < start + want) {
            uint64_t e = b;
            while (e < start + want && pix[e] == pix[b])
                e++;
            if (want_np < cap) {
                CHECK(at[want_np].i == pix[b] && at[want_np].po == pof[b],
                      "chunk at %llu, part %zu: at piece %llu+%llu, model %llu+%llu", (unsigned long long)start,
                      want_np, (unsigned long long)at[want_np].i, (unsigned long long)at[want_np].po,
                      (unsigned long long)pix[b], (unsigned long long)pof[b]);
                CHECK(plen[want_np] == e - b, "chunk at %llu, part %zu: %llu bytes, model %llu",
                      (unsigned long long)start, want_np, (unsigned long long)plen[want_np],
                      (unsigned long long)(e - b));
                sum += plen[want_np];
            }
            want_np++;
            b = e;
        }
        CHECK(np == want_np, "chunk at %llu: %zu parts, model %zu", (unsigned long long)start, np, want_np);
        if (np <= cap)
            CHECK(sum == want, "chunk at %llu: parts hold %llu bytes of %llu", (unsigned long long)start,
                  (unsigned long long)sum, (unsigned long long)want);
        /* The cursor is at the next chunk's first byte (past empty pieces
         * it has not reached yet is fine: the next walk skips them). */
        if (start + want < total) {
            uint64_t nb = start + want, i = c.i, po = c.po;
            while (i < n && po == lens[i]) {
                i++;
                po = 0;
            }
            CHECK(i == pix[nb] && po == pof[nb], "cursor after chunk at %llu: piece %llu+%llu, model %llu+%llu",
                  (unsigned long long)start, (unsigned long long)i, (unsigned long long)po, (unsigned long long)pix[nb],
                  (unsigned long long)pof[nb]);
        }
    }
    /* Nothing left: no more parts. */
    uint64_t plen[1];
    CHECK(ioc_parts(lens, n, &c, 1, NULL, plen, 1) == 0, "parts after the end of the payload");
}

/* Random pieces in an arena, often adjacent in memory, some empty. */
static void one_dtype(void)
{
    static unsigned char arena[1 << 16], packed[1 << 16], want[1 << 16];
    void                *bufs[64];
    uint64_t             lens[64], total = 0, at = t_rnd() % 64;
    size_t               n        = 1 + t_rnd() % 64;
    int                  adjacent = 1;
    for (size_t i = 0; i < sizeof arena; i++)
        arena[i] = (unsigned char)t_rnd();
    for (size_t i = 0; i < n; i++) {
        uint64_t r = t_rnd() % 8;
        lens[i]    = r == 0 ? 0 : t_rnd() % 200;
        if ((r == 1 || at + lens[i] > sizeof arena) && i > 0) { /* jump: a gap, or back */
            at       = t_rnd() % (sizeof arena - 256);
            adjacent = 0;
        }
        bufs[i] = arena + at;
        memcpy(want + total, arena + at, lens[i]);
        at += lens[i];
        total += lens[i];
    }
    void         *base;
    MPI_Datatype  dt;
    int           count, pos = 0;
    h5sf_errbuf_t e;
    memset(&e, 0, sizeof e);
    CHECK(ioc_dtype_make(n, bufs, lens, &base, &dt, &count, &e) == 0, "ioc_dtype_make failed");
    if (total && adjacent)
        CHECK(dt == MPI_BYTE && base == bufs[0] && count == (int)total,
              "%zu pieces adjacent in memory (%llu bytes) are not one contiguous message", n,
              (unsigned long long)total);
    if (total) {
        MPI_Pack(base, count, dt, packed, (int)sizeof packed, &pos, MPI_COMM_SELF);
        CHECK(pos == (int)total && !memcmp(packed, want, total),
              "the datatype over %zu pieces packs %d bytes, "
              "not the pieces' %llu in order",
              n, pos, (unsigned long long)total);
    }
    ioc_dtype_free(&dt);
}

int main(int argc, char **argv)
{
    t_init_level(&argc, &argv, "unit_payload", MPI_THREAD_SINGLE); /* no threads: MPI_Init's level */
    t_rnd_seed(0x9E3779B97F4A7C15ull);
    for (int t = 0; t < 2000; t++)
        one_dtype();
    for (int t = 0; t < 3000; t++)
        one_list(1 + t_rnd() % 200, t_rnd() % 2 ? NP + 1 : t_rnd() % 4);

    /* Messages: a few large parts split, anything else one message. */
    uint64_t M = H5SF_IOC_CHUNK;
    CHECK(ioc_chunk_msgs(1, M) == 1, "one part is one message");
    CHECK(ioc_chunk_msgs(2, M) == 2, "two 4 MiB parts move as two messages");
    CHECK(ioc_chunk_msgs(IOC_SPLIT_MAX, M) == IOC_SPLIT_MAX, "%d parts of 512 KiB split", IOC_SPLIT_MAX);
    CHECK(ioc_chunk_msgs(IOC_SPLIT_MAX + 1, M) == 1, "more than IOC_SPLIT_MAX parts: one datatype message");
    CHECK(ioc_chunk_msgs(2048, M) == 1, "a strided chunk (2048 parts of 4 KiB) is one message");
    CHECK(ioc_chunk_msgs(4, 4 * IOC_SPLIT_MIN) == 4, "parts of exactly IOC_SPLIT_MIN split");
    CHECK(ioc_chunk_msgs(4, 4 * IOC_SPLIT_MIN - 1) == 1, "parts below IOC_SPLIT_MIN on average: one message");
    CHECK(ioc_chunk_msgs(0, 0) == 1, "an empty chunk is not split");

    /* Chunks: 8 MiB, or a quarter of a smaller payload (at least 1 MiB,
     * whole 64 KiB), and their lengths add up to the payload. */
    CHECK_EQ(ioc_chunk_size(64 * M), M);
    CHECK_EQ(ioc_chunk_size(4 << 20), 1 << 20);
    CHECK_EQ(ioc_nchunks(4 << 20), 4);
    CHECK_EQ(ioc_chunk_size(100 << 10), 1 << 20);
    CHECK_EQ(ioc_nchunks(100 << 10), 1);
    CHECK_EQ(ioc_nchunks(0), 0);
    CHECK_EQ(ioc_chunk_size((6 << 20) + 1), 25 * IOC_SPLIT_MIN);
    for (int t = 0; t < 1000; t++) {
        uint64_t total = t_rnd() % (64 * M), sum = 0, nk = ioc_nchunks(total);
        CHECK(nk <= 4 || ioc_chunk_size(total) == M, "%llu bytes in %llu chunks of %llu", (unsigned long long)total,
              (unsigned long long)nk, (unsigned long long)ioc_chunk_size(total));
        for (uint64_t k = 0; k < nk; k++) {
            CHECK(ioc_chunk_len(total, k) > 0 && ioc_chunk_len(total, k) <= M, "chunk %llu of %llu bytes",
                  (unsigned long long)k, (unsigned long long)total);
            sum += ioc_chunk_len(total, k);
        }
        CHECK_EQ(sum, total);
    }

    int rc = t_verdict();
    MPI_Finalize();
    return rc;
}
