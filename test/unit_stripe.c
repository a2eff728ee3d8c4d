/* unit_stripe -- stripe math against a byte-by-byte brute-force reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stripe.h"
#include "h5sf_test.h"

/* Reference: walk byte by byte, stripe k -> subfile k % N, row k / N. */
static void ref_map(uint64_t a, uint64_t S, int N, int *s, uint64_t *off)
{
    uint64_t k = a / S;
    *s         = (int)(k % N);
    *off       = (k / N) * S + a % S;
}

int main(void)
{
    t_start("unit_stripe");
    const uint64_t sizes[]  = {1, 3, 128, 4096};
    const int      counts[] = {1, 2, 3, 4, 7};
    for (size_t si = 0; si < 4; si++)
        for (size_t ci = 0; ci < 5; ci++) {
            uint64_t S = sizes[si];
            int      N = counts[ci];
            /* subfile sizes and EOF inversion for many EOFs */
            for (uint64_t eof = 0; eof < 3 * S * N + 5; eof += (S > 100 ? 37 : 1)) {
                uint64_t want[8] = {0}, got[8];
                for (uint64_t a = 0; a < eof; a++) {
                    int      s;
                    uint64_t off;
                    ref_map(a, S, N, &s, &off);
                    if (off + 1 > want[s])
                        want[s] = off + 1;
                }
                for (int s = 0; s < N; s++) {
                    got[s] = sf_subfile_size(eof, S, N, s);
                    CHECK(got[s] == want[s], "size S=%llu N=%d eof=%llu s=%d: %llu != %llu", (unsigned long long)S, N,
                          (unsigned long long)eof, s, (unsigned long long)got[s], (unsigned long long)want[s]);
                }
                CHECK(sf_logical_eof(got, S, N) == eof, "eof inversion S=%llu N=%d eof=%llu", (unsigned long long)S, N,
                      (unsigned long long)eof);
            }
            /* plan: random extents, every byte must land where the reference says */
            sf_plan_t p;
            CHECK(sf_plan_init(&p, S, N) == 0, "init");
            t_rnd_seed(7);
            for (int iter = 0; iter < 200; iter++) {
                sf_plan_reset(&p);
                uint64_t addr = t_rnd_below(5 * S * N + 3), len = 1 + t_rnd_below(4 * S * N + 2);
                uint64_t mem = 1000;
                CHECK(sf_plan_add(&p, addr, len, mem) == 0, "add");
                uint64_t covered = 0;
                for (int t = 0; t < p.ntouched; t++) {
                    int s = p.touched[t];
                    for (size_t j = 0; j < p.lists[s].n; j++) {
                        sf_piece_t *pc = &p.lists[s].v[j];
                        for (uint64_t b = 0; b < pc->len; b++) {
                            uint64_t a = addr + (pc->mem + b - mem);
                            int      rs;
                            uint64_t roff;
                            ref_map(a, S, N, &rs, &roff);
                            if (rs != s || roff != pc->off + b) {
                                CHECK(0, "byte %llu -> (%d,%llu) want (%d,%llu)", (unsigned long long)a, s,
                                      (unsigned long long)(pc->off + b), rs, (unsigned long long)roff);
                                goto next;
                            }
                        }
                        covered += pc->len;
                    }
                }
                CHECK(covered == len, "covered %llu of %llu", (unsigned long long)covered, (unsigned long long)len);
                CHECK(p.stored == sf_plan_pieces_out(&p), "stored %llu, lists hold %llu", (unsigned long long)p.stored,
                      (unsigned long long)sf_plan_pieces_out(&p));
                sf_plan_sort(&p);
                for (int t = 1; t < p.ntouched; t++)
                    CHECK(p.touched[t - 1] < p.touched[t], "touched subfiles not ascending after the sort: %d, %d",
                          p.touched[t - 1], p.touched[t]);
                /* one subfile, contiguous memory: exactly one piece per touched subfile row run? at least merged */
                if (N == 1)
                    CHECK(sf_plan_pieces_out(&p) == 1, "N=1 must merge into one piece");
            next:;
            }
            /* strided pieces in reverse order get sorted and merged */
            sf_plan_reset(&p);
            for (int k = 9; k >= 0; k--)
                sf_plan_add(&p, (uint64_t)k * S * N, S, (uint64_t)k * S);
            sf_plan_sort(&p);
            CHECK(p.ntouched == 1 && p.lists[0].n == 1 && p.lists[0].v[0].len == 10 * S,
                  "reverse strided stripes on subfile 0 merge into one piece (S=%llu N=%d, n=%zu)",
                  (unsigned long long)S, N, p.lists[0].n);
            CHECK(p.stored == 1, "stored %llu after the sort merged all into one", (unsigned long long)p.stored);
            /* trim: the memory goes only when the lists can hold more than keep */
            sf_plan_reset(&p);
            sf_plan_trim(&p, 1u << 20);
            CHECK(p.lists[0].v != NULL, "trim freed lists below the keep");
            sf_plan_trim(&p, 0);
            CHECK(p.lists[0].v == NULL && p.lists[0].cap == 0, "trim kept lists above the keep");
            CHECK(sf_plan_add(&p, 0, 2 * S, 0) == 0 && p.stored == (N == 1 ? 1u : 2u), "add after trim");
            sf_plan_free(&p);
        }
    return t_verdict();
}
