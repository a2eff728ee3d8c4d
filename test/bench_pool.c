/*
 * bench_pool.c -- where running a call's subfile transfers together
 * (vfd/threadpool.c) starts to pay: one call = one contiguous transfer of B bytes
 * to each of 4 files, in order on the caller vs together on the pool,
 * alternated, median of R calls per size.  The break-even sets
 * H5SF_POOL_MIN_BYTES (docs/performance-history.md, Figures behind constants, pool
 * threshold).
 *
 * usage: bench_pool DIR [reps]   (prints size,op,inorder_us,together_us)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../vfd/threadpool.h"
#include "h5sf_test.h"

#define NF 4

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_pool DIR [reps]\n");
        return 2;
    }
    int  reps = argc > 2 ? atoi(argv[2]) : 201;
    int  fds[NF];
    char path[4200];
    for (int f = 0; f < NF; f++) {
        snprintf(path, sizeof path, "%s/bench_pool_%d", argv[1], f);
        if ((fds[f] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0) {
            perror(path);
            return 2;
        }
    }
    size_t         maxb = (size_t)4 << 20;
    unsigned char *buf  = malloc(NF * maxb);
    memset(buf, 7, NF * maxb);
    double *t[2] = {malloc((size_t)reps * sizeof(double)), malloc((size_t)reps * sizeof(double))};
    printf("bytes_per_subfile,op,inorder_us,together_us\n");
    for (size_t b = 4096; b <= maxb; b *= 2)
        for (int w = 1; w >= 0; w--) {
            sf_piece_t      pc[NF];
            h5sf_pool_job_t j[NF];
            for (int r = 0; r < reps; r++)
                for (int mode = 0; mode < 2; mode++) {
                    memset(j, 0, sizeof j);
                    for (int f = 0; f < NF; f++) {
                        pc[f] = (sf_piece_t){(uint64_t)(r % 8) * b, b, (uint64_t)(uintptr_t)(buf + (size_t)f * maxb)};
                        j[f]  = (h5sf_pool_job_t){.fd = fds[f], .is_write = w, .v = &pc[f], .n = 1, .fault_rank = -1};
                    }
                    uint64_t inflight;
                    double   t0 = t_now_s() * 1e6;
                    h5sf_pool_run(j, NF, mode == 1 ? H5SF_POOL_MAX_THREADS : 0, &inflight);
                    t[mode][r] = t_now_s() * 1e6 - t0;
                }
            qsort(t[0], (size_t)reps, sizeof(double), cmp);
            qsort(t[1], (size_t)reps, sizeof(double), cmp);
            printf("%zu,%s,%.1f,%.1f\n", b, w ? "write" : "read", t[0][reps / 2], t[1][reps / 2]);
            fflush(stdout);
        }
    h5sf_pool_shutdown();
    for (int f = 0; f < NF; f++) {
        close(fds[f]);
        snprintf(path, sizeof path, "%s/bench_pool_%d", argv[1], f);
        unlink(path);
    }
    free(buf);
    free(t[0]);
    free(t[1]);
    return 0;
}
