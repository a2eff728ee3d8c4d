/*
 * bench_msgcost -- what one IOC request costs: the per-message and per-byte
 * numbers behind the scaling model in docs/multinode.md.  Not a test.
 *
 * Opens one h5sf file at the VFD level (H5FDopen: no HDF5 metadata in the
 * way) with the IOC channel, one IOC per node and stripes so large that
 * every call is exactly one request to one IOC: stripe k belongs to the IOC
 * k mod nioc.  Then:
 *   1. latency/bandwidth: rank 1 alone writes and reads S bytes, S from 8 B
 *      to 8 MiB, to the IOC on its own node and to the IOC of another node;
 *      a raw MPI ping-pong between the same ranks for comparison; best of
 *      five batches, the other ranks sleep meanwhile;
 *   2. one IOC under load: every other rank sends small writes to IOC 0 at once;
 *      the IOC's service rate (requests/s) and what a request costs there.
 *   3. the counting rule: one vector of K scattered blocks costs one request
 *      per touched subfile (at most stripe_count), and what a block costs.
 * Message counts come from H5FD_H5SF_CTL_GET_STATS and are checked to be one
 * per call.  Run (2 hosts x 2 ranks):
 *   scripts/netns-cluster.sh run -n 2 -s 2 -- -n 4 <build>/bin/bench_msgcost DIR
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define STRIPE   ((haddr_t)64 << 20)
#define MAX_SIZE ((size_t)8 << 20)

/* Not a test: a failure only stops the benchmark. */
static void die(const char *what) { VRFY(0, "%s failed", what); }

static uint64_t messages(H5FD_t *f)
{
    h5sf_stats_t  st = {.size = sizeof st};
    h5sf_stats_t *p  = &st;
    if (H5FDctl(f, H5FD_H5SF_CTL_GET_STATS, 0, NULL, (void **)&p) < 0)
        die("H5FDctl(GET_STATS)");
    return st.messages;
}

/* A barrier that sleeps while it waits: ranks not being measured must not
 * spin in MPI and take the CPU from those that are (small, shared machine). */
static void quiet_barrier(void)
{
    MPI_Request     rq;
    int             done = 0;
    struct timespec ms   = {0, 1000000};
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    while (MPI_Test(&rq, &done, MPI_STATUS_IGNORE), !done)
        nanosleep(&ms, NULL);
}

/* Seconds per call of n writes (or reads) of size bytes at stripe `stripe`. */
static double timed1(H5FD_t *f, int write, haddr_t stripe, size_t size, int n, char *buf)
{
    uint64_t m0 = messages(f);
    double   t0 = t_now_s();
    for (int i = 0; i < n; i++) {
        haddr_t a = stripe * STRIPE + ((haddr_t)i * size) % (STRIPE - size + 1);
        if ((write ? H5FDwrite(f, H5FD_MEM_DRAW, H5P_DEFAULT, a, size, buf)
                   : H5FDread(f, H5FD_MEM_DRAW, H5P_DEFAULT, a, size, buf)) < 0)
            die(write ? "H5FDwrite" : "H5FDread");
    }
    double t = (t_now_s() - t0) / n;
    if (messages(f) - m0 != (uint64_t)n) {
        fprintf(stderr, "bench_msgcost: %d calls sent %llu messages, expected one each\n", n,
                (unsigned long long)(messages(f) - m0));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return t;
}

/* Best of five batches: other tenants of the machine only ever add time. */
static double timed(H5FD_t *f, int write, haddr_t stripe, size_t size, int n, char *buf)
{
    double best = 1e30;
    for (int b = 0; b < 5; b++) {
        double t = timed1(f, write, stripe, size, n, buf);
        best     = t < best ? t : best;
    }
    return best;
}

/* Half a round trip of size bytes between ranks a and b. */
static double pingpong1(int a, int b, size_t size, int n, char *buf)
{
    double t0 = t_now_s();
    for (int i = 0; i < n; i++) {
        if (t_rank == a) {
            MPI_Send(buf, (int)size, MPI_BYTE, b, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)size, MPI_BYTE, b, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        else if (t_rank == b) {
            MPI_Recv(buf, (int)size, MPI_BYTE, a, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)size, MPI_BYTE, a, 0, MPI_COMM_WORLD);
        }
    }
    return (t_now_s() - t0) / n / 2;
}
static double pingpong(int a, int b, size_t size, int n, char *buf)
{
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
        double t = pingpong1(a, b, size, n, buf);
        best     = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "bench_msgcost");
    if (argc < 2 || t_size < 4) {
        if (t_rank == 0)
            fprintf(stderr, "usage: mpiexec -n 4 (2 nodes x 2) bench_msgcost DIR\n");
        MPI_Finalize();
        return 2;
    }
    char path[4096], cfg[256];
    snprintf(path, sizeof path, "%s/bench.h5", argv[1]);
    snprintf(cfg, sizeof cfg, "stripe_size=%llu,ioc=per_node,channel=ioc,threads=2", (unsigned long long)STRIPE);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0 ||
        H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME, cfg) < 0)
        die("fapl");
    H5FD_t *f = H5FDopen(path, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, fapl, (haddr_t)1 << 40);
    if (!f)
        die("H5FDopen");
    H5FD_h5sf_layout_t  l;
    H5FD_h5sf_layout_t *lp = &l;
    if (H5FDctl(f, H5FD_H5SF_CTL_GET_LAYOUT, 0, NULL, (void **)&lp) < 0 || l.ioc_count < 2)
        die("two IOCs (run on two nodes)");
    if (H5FDset_eoa(f, H5FD_MEM_DRAW, STRIPE * (haddr_t)l.ioc_count) < 0)
        die("H5FDset_eoa");
    char *buf = malloc(MAX_SIZE);
    if (!buf)
        die("malloc");
    memset(buf, 0x5a, MAX_SIZE);

    /* Rank 1 shares a node with IOC 0 (rank 0) and not with the other IOC,
     * as mpiexec places ranks by slot with 2 slots per node. */
    static const size_t sizes[] = {8, 4096, 65536, 1 << 20, 8 << 20};
    if (t_rank == 0)
        printf("%-10s %-13s %12s %12s %12s %10s\n", "bytes", "IOC", "write us", "read us", "MPI 1-way us",
               "write MB/s");
    for (int remote = 0; remote < 2; remote++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            size_t s = sizes[k];
            int    n = s <= 65536 ? 400 : s <= (1 << 20) ? 40 : 8;
            double w = 0, r = 0, p = 0;
            quiet_barrier();
            if (t_rank == 1) {
                timed1(f, 1, (haddr_t)remote, s, n / 8 + 1, buf); /* warm up */
                w = timed(f, 1, (haddr_t)remote, s, n, buf);
                r = timed(f, 0, (haddr_t)remote, s, n, buf);
            }
            quiet_barrier();
            if (t_rank == 1 || t_rank == (remote ? 2 : 0)) {
                pingpong1(1, remote ? 2 : 0, s, n / 8 + 1, buf);
                p = pingpong(1, remote ? 2 : 0, s, n, buf);
            }
            quiet_barrier();
            if (t_rank == 1)
                printf("%-10zu %-13s %12.1f %12.1f %12.1f %10.1f\n", s, remote ? "other node" : "same node", w * 1e6,
                       r * 1e6, p * 1e6, s / w / 1e6);
            fflush(stdout);
        }

    /* All ranks at once at IOC 0: its service rate. */
    quiet_barrier();
    const int n    = 300;
    double    mine = 0, slowest = 0;
    if (t_rank != 0) { /* rank 0 is IOC 0: its own requests skip MPI */
        double t0 = t_now_s();
        timed1(f, 1, 0, 8, n, buf);
        mine = t_now_s() - t0;
    }
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("one IOC, %d clients x %d 8-byte writes at once: %.0f requests/s served, %.1f us per request\n",
               t_size - 1, n, (t_size - 1) * n / slowest, slowest / ((t_size - 1) * n) * 1e6);
    if (H5FDclose(f) < 0)
        die("H5FDclose");
    H5Pclose(fapl);

    /* 3. Counting rule: one vector call of K scattered blocks becomes one
     * request per touched subfile, whatever K.  4 KiB stripes over 8
     * subfiles; rank r writes K 512-byte blocks, one in each of stripes 0..K-1
     * at offset 512 r, so min(K, 8) subfiles are touched. */
    snprintf(path, sizeof path, "%s/bench-vec.h5", argv[1]);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0 ||
        H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME,
                              "stripe_size=4096,stripe_count=8,ioc=per_node,channel=ioc,threads=2") < 0 ||
        !(f = H5FDopen(path, H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC, fapl, (haddr_t)1 << 40)))
        die("open vector file");
    enum { KMAX = 4096 };
    static haddr_t     addrs[KMAX];
    static size_t      lens[KMAX];
    static const void *bufs[KMAX];
    static H5FD_mem_t  types[KMAX];
    if (H5FDset_eoa(f, H5FD_MEM_DRAW, (haddr_t)KMAX * 4096 * (haddr_t)t_size) < 0)
        die("H5FDset_eoa");
    if (t_rank == 0)
        printf("%-8s %-16s %12s %14s\n", "K", "requests/call", "write us", "us per block");
    for (int K = 1; K <= KMAX; K *= 8) {
        for (int i = 0; i < K; i++) {
            addrs[i] = (haddr_t)i * 4096 + (haddr_t)t_rank * 512; /* stripe i, shared with the other ranks */
            lens[i]  = 512;
            bufs[i]  = buf;
            types[i] = H5FD_MEM_DRAW;
        }
        quiet_barrier();
        double   best = 1e30;
        uint64_t m0   = messages(f);
        for (int b = 0; b < 5; b++) {
            double t0 = t_now_s();
            if (t_rank == 1 && H5FDwrite_vector(f, H5P_DEFAULT, (uint32_t)K, types, addrs, lens, bufs) < 0)
                die("H5FDwrite_vector");
            double t = t_now_s() - t0;
            best     = t < best ? t : best;
        }
        quiet_barrier();
        if (t_rank == 1)
            printf("%-8d %-16.1f %12.1f %14.2f\n", K, (double)(messages(f) - m0) / 5, best * 1e6, best * 1e6 / K);
        fflush(stdout);
    }
    free(buf);
    if (H5FDclose(f) < 0)
        die("H5FDclose");
    H5Pclose(fapl);
    MPI_Finalize();
    return 0;
}
