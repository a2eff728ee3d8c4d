/*
 * unit_wire.c -- the IOC wire format: round trips, and rejection of
 * truncated, corrupt and hostile messages (run under ASan in the suite).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire.h"
#include "h5sf_test.h"


/* Build a valid message with n pieces; inline payload for writes if asked. */
static unsigned char *build(int op, uint64_t n, int inl, h5sf_wire_hdr_t *h, size_t *len)
{
    uint64_t offs[64], lens[64], total = 0;
    for (uint64_t i = 0; i < n; i++) {
        offs[i] = t_rnd() % 1000000;
        lens[i] = 1 + t_rnd() % 100;
        total += lens[i];
    }
    *h               = (h5sf_wire_hdr_t){.op      = (uint16_t)op,
                                         .id      = t_rnd(),
                                         .file_id = 3,
                                         .subfile = 7,
                                         .count   = n,
                                         .total   = total,
                                         .arg     = 0,
                                         .flags   = inl ? H5SF_WIRE_INLINE : 0,
                                         .tag     = 42};
    *len             = h5sf_wire_msg_size(h);
    unsigned char *b = malloc(*len);
    h5sf_wire_encode(h, offs, lens, b);
    if (inl)
        memset(b + *len - total, 0xAB, total);
    return b;
}

int main(void)
{
    h5sf_errbuf_t        e;
    h5sf_wire_hdr_t      h, g;
    const unsigned char *pairs, *payload;
    size_t               len;
    t_start("unit_wire");
    t_rnd_seed(0x2545F4914F6CDD1Dull);

    /* Round trips. */
    for (int op = H5SF_WIRE_WRITE; op <= H5SF_WIRE_READ; op++)
        for (uint64_t n = 0; n < 64; n += 7) {
            unsigned char *b = build(op, n, op == H5SF_WIRE_WRITE && n % 2, &h, &len);
            CHECK(h5sf_wire_decode(b, len, &g, &pairs, &payload, &e) == 0, "valid message rejected: %s", e.msg);
            CHECK(g.op == h.op && g.id == h.id && g.count == h.count && g.total == h.total && g.tag == h.tag &&
                      g.flags == h.flags && g.file_id == 3 && g.subfile == 7,
                  "header fields changed in a round trip");
            CHECK((payload != NULL) == ((h.flags & H5SF_WIRE_INLINE) != 0), "payload pointer wrong");
            /* Every shorter prefix must be rejected, never read past. */
            for (size_t k = 0; k < len; k++) {
                unsigned char *t = malloc(k ? k : 1);
                memcpy(t, b, k);
                CHECK(h5sf_wire_decode(t, k, &g, &pairs, &payload, &e) < 0, "truncated message (%zu of %zu) accepted",
                      k, len);
                free(t);
            }
            free(b);
        }

    /* Corrupt fields, one at a time. */
    unsigned char *b = build(H5SF_WIRE_WRITE, 5, 1, &h, &len);
    struct {
        size_t        at;
        unsigned char v;
        const char   *what;
    } bad[] = {{0, 0x00, "magic"}, {4, 9, "version"},   {6, 0, "op 0"},      {6, 99, "op 99"},
               {24, 6, "count"},   {32, 0xFF, "total"}, {48, 0x80, "flags"}, {55, 0x80, "negative tag"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char *t = malloc(len);
        memcpy(t, b, len);
        t[bad[i].at] = bad[i].v;
        CHECK(h5sf_wire_decode(t, len, &g, &pairs, &payload, &e) < 0, "corrupt %s accepted", bad[i].what);
        free(t);
    }
    /* Shared-memory payloads: on reads and writes, with the offset in arg;
     * never with an inline payload nor on a control request. */
    for (int op = H5SF_WIRE_WRITE; op <= H5SF_WIRE_FSYNC; op++) {
        unsigned char *t = build(op, op <= H5SF_WIRE_READ ? 3 : 0, 0, &h, &len);
        h.flags          = H5SF_WIRE_SHM;
        h.arg            = 123456;
        h5sf_put_u64(t + 40, h.arg);
        h5sf_put_u32(t + 48, h.flags);
        int ok = h5sf_wire_decode(t, len, &g, &pairs, &payload, &e) == 0;
        CHECK(ok == (op <= H5SF_WIRE_READ), "shared-memory payload on op %d %s", op, ok ? "accepted" : "rejected");
        CHECK(!ok || (g.arg == 123456 && g.flags == H5SF_WIRE_SHM && !payload), "shared-memory fields lost");
        free(t);
    }
    {
        unsigned char *t = build(H5SF_WIRE_WRITE, 3, 1, &h, &len);
        h5sf_put_u32(t + 48, H5SF_WIRE_INLINE | H5SF_WIRE_SHM);
        CHECK(h5sf_wire_decode(t, len, &g, &pairs, &payload, &e) < 0, "inline and shared-memory payload accepted");
        free(t);
    }
    /* A piece length that wraps the sum, and an offset past INT64_MAX. */
    {
        uint64_t        offs[2] = {0, 10}, lens[2] = {UINT64_MAX - 5, 10};
        h5sf_wire_hdr_t w = {.op = H5SF_WIRE_READ, .count = 2, .total = 4, .tag = 20};
        unsigned char   m[H5SF_WIRE_HDR_SIZE + 32];
        h5sf_wire_encode(&w, offs, lens, m);
        CHECK(h5sf_wire_decode(m, sizeof m, &g, &pairs, &payload, &e) < 0, "wrapping lengths accepted");
        offs[0] = (uint64_t)1 << 63;
        lens[0] = 1;
        w.total = 11;
        h5sf_wire_encode(&w, offs, lens, m);
        CHECK(h5sf_wire_decode(m, sizeof m, &g, &pairs, &payload, &e) < 0, "offset beyond INT64_MAX accepted");
    }
    free(b);

    /* Random garbage and random bit flips of valid messages: no crash. */
    for (int i = 0; i < 200000; i++) {
        size_t         n = (size_t)(t_rnd() % 400);
        unsigned char *t;
        if (i % 2) {
            t = build((int)(1 + t_rnd() % 2), t_rnd() % 8, 0, &h, &len);
            if (len)
                t[t_rnd() % len] ^= (unsigned char)(1u << (t_rnd() % 8));
            n = len;
        }
        else {
            t = malloc(n ? n : 1);
            for (size_t k = 0; k < n; k++)
                t[k] = (unsigned char)t_rnd();
            if (n >= 4 && t_rnd() % 2)
                h5sf_put_u32(t, H5SF_WIRE_MAGIC);
            if (n >= 6 && t_rnd() % 2)
                h5sf_put_u16(t + 4, H5SF_WIRE_VERSION);
        }
        if (h5sf_wire_decode(t, n, &g, &pairs, &payload, &e) == 0) {
            uint64_t sum = 0, off, l;
            for (uint64_t k = 0; k < g.count; k++) {
                h5sf_wire_pair(pairs, k, &off, &l);
                sum += l;
            }
            CHECK(sum == g.total, "accepted message whose lengths do not add up");
        }
        free(t);
    }

    /* Replies. */
    h5sf_wire_reply_t r = {.status = 5, .id = 77, .value = 1234}, q;
    unsigned char     rb[H5SF_WIRE_REPLY_SIZE];
    snprintf(r.msg, sizeof r.msg, "pwrite failed");
    h5sf_wire_reply_encode(&r, rb);
    CHECK(h5sf_wire_reply_decode(rb, sizeof rb, &q, &e) == 0 && q.status == 5 && q.id == 77 && q.value == 1234 &&
              !strcmp(q.msg, "pwrite failed"),
          "reply round trip");
    CHECK(h5sf_wire_reply_decode(rb, sizeof rb - 1, &q, &e) < 0, "short reply accepted");
    rb[0] ^= 1;
    CHECK(h5sf_wire_reply_decode(rb, sizeof rb, &q, &e) < 0, "reply with bad magic accepted");

    return t_verdict();
}
