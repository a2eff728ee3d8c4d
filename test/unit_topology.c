/* unit_topology -- the I/O concentrator list (common/iocmap.c): fixed cases
 * worked out by hand for the placements of the multinode tests, then random
 * placements against a transcription of the built-in driver's selection
 * (HDF5 1.14.5, src/H5FDsubfiling/H5subfiling_common.c).  Serial. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "settings.h"
#include "iocmap.h"

#include "h5sf_test.h"

static h5sf_settings_t cfg_of(const char *ioc)
{
    h5sf_settings_t c;
    h5sf_errbuf_t   e = {0};
    h5sf_settings_defaults(&c);
    if (h5sf_parse_ioc(ioc, &c, &e, "ioc") < 0) {
        fprintf(stderr, "bad test setting %s: %s\n", ioc, e.msg);
        exit(1);
    }
    return c;
}

static void fmt(char *buf, size_t n, const int *v, int k)
{
    size_t at = 0;
    buf[0]    = '\0';
    for (int i = 0; i < k && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%d", i ? "," : "", v[i]);
}

/* The IOC list for placement lead[] (lowest rank of each rank's node). */
static void expect(int line, int size, const int *lead, const char *ioc, int nsub, const char *want, int want_nodes)
{
    h5sf_settings_t c    = cfg_of(ioc);
    h5sf_errbuf_t   e    = {0};
    int            *iocs = NULL, n = 0, nodes = 0;
    char            got[512];
    if (h5sf_iocmap_select(size, lead, &c, nsub, &iocs, &n, &nodes, &e) < 0) {
        CHECK_AT(line, 0, "%s, %d subfiles: %s", ioc, nsub, e.msg);
        return;
    }
    fmt(got, sizeof got, iocs, n);
    CHECK_AT(line, !strcmp(got, want) && nodes == want_nodes,
             "%s, %d subfiles: IOCs [%s] on %d node(s), expected [%s] on %d", ioc, nsub, got, nodes, want, want_nodes);
    free(iocs);
}
#define EXPECT(size, lead, ioc, nsub, want, nodes) expect(__LINE__, size, lead, ioc, nsub, want, nodes)

static void fixed_cases(void)
{
    /* 2 hosts x 2, --map-by slot: h1 = {0,1}, h2 = {2,3}. */
    static const int slot22[] = {0, 0, 2, 2};
    EXPECT(4, slot22, "per_node", 0, "0,2", 2);
    EXPECT(4, slot22, "per_node:2", 0, "0,1,2,3", 2);
    EXPECT(4, slot22, "every:2", 0, "0,2", 2);
    EXPECT(4, slot22, "total:3", 0, "0,1,2", 2);

    /* 2 hosts x 2, --map-by node: h1 = {0,2}, h2 = {1,3}.  Node by node the
     * ranks are 0,2,1,3, and every mode picks from that sequence; sorting by
     * rank (h5sf before) put subfile 1 on h1 where the built-in has h2. */
    static const int node22[] = {0, 1, 0, 1};
    EXPECT(4, node22, "per_node", 0, "0,1", 2);
    EXPECT(4, node22, "per_node:2", 0, "0,2,1,3", 2);
    EXPECT(4, node22, "per_node:2", 5, "0,2,1,3", 2);
    EXPECT(4, node22, "every:1", 0, "0,2,1,3", 2);
    EXPECT(4, node22, "every:2", 0, "0,1", 2); /* positions 0 and 2: one per host */
    EXPECT(4, node22, "every:3", 0, "0,3", 2);
    EXPECT(4, node22, "every:9", 0, "0", 2);     /* N capped at the rank count */
    EXPECT(4, node22, "total:3", 0, "0,2,1", 2); /* stride (4 - 1) / (3 - 1) = 1 */
    EXPECT(4, node22, "total:2", 0, "0,3", 2);   /* stride 3 */
    EXPECT(4, node22, "total:1", 0, "0", 2);
    EXPECT(4, node22, "total:9", 0, "0,2,1,3", 2);
    EXPECT(4, node22, "ranks:0;1;2;3", 0, "0,2,1,3", 2); /* = per_node:2, every:1, total:4 */
    EXPECT(4, node22, "ranks:3;2", 0, "2,3", 2);
    EXPECT(4, node22, "ranks:1;2", 0, "2,1", 2);

    /* 3 hosts x 2, --map-by node: h1 = {0,3}, h2 = {1,4}, h3 = {2,5}. */
    static const int node32[] = {0, 1, 2, 0, 1, 2};
    EXPECT(6, node32, "per_node:2", 13, "0,3,1,4,2,5", 3);
    EXPECT(6, node32, "every:2", 0, "0,1,2", 3);
    EXPECT(6, node32, "every:4", 0, "0,2", 3);
    EXPECT(6, node32, "total:4", 0, "0,3,1,4", 3); /* stride 5 / 3 = 1: not spread, as the built-in */
    EXPECT(6, node32, "total:2", 0, "0,5", 3);

    /* No more IOCs than subfiles.  per_node: N x nodes capped first, then
     * count / nodes (at least 1) from each node: 3 subfiles on 2 nodes with
     * per_node:2 are served by one IOC per node. */
    EXPECT(4, node22, "per_node:2", 3, "0,1", 2);
    EXPECT(4, node22, "per_node:2", 1, "0", 2);
    EXPECT(6, node32, "per_node:2", 4, "0,1,2", 3);
    EXPECT(6, node32, "per_node:2", 2, "0,1", 3);
    EXPECT(6, node32, "per_node", 2, "0,1", 3);
    EXPECT(4, node22, "every:1", 3, "0,2,1", 2); /* the others: a prefix */
    EXPECT(4, node22, "total:3", 2, "0,2", 2);
    EXPECT(4, node22, "ranks:0;1;2;3", 2, "0,2", 2);

    /* Uneven nodes: h1 = {0,1,2}, h2 = {3}; interleaved h1 = {0,2,3}, h2 = {1,4}. */
    static const int uneven[] = {0, 0, 0, 3};
    EXPECT(4, uneven, "per_node:2", 0, "0,1,3", 2);
    EXPECT(4, uneven, "per_node:3", 0, "0,1,2,3", 2);
    static const int mixed[] = {0, 1, 0, 0, 1};
    EXPECT(5, mixed, "per_node:2", 0, "0,2,1,4", 2);
    EXPECT(5, mixed, "every:2", 0, "0,3,4", 2);

    /* One rank; every rank its own node. */
    static const int one[] = {0}, own[] = {0, 1, 2};
    EXPECT(1, one, "per_node:4", 0, "0", 1);
    EXPECT(1, one, "total:3", 0, "0", 1);
    EXPECT(3, own, "per_node:2", 0, "0,1,2", 3);
}

/* The default subfile count of a new file: nioc x min(K, ranks per IOC on
 * the node whose IOCs serve the fewest), worked out by hand per case. */
static void default_count_cases(void)
{
    static const struct {
        int         size;
        int         lead[8];
        const char *ioc;
        int         k, want;
    } c[] = {
        {1, {0}, "per_node", 4, 1},                        /* one rank: one subfile      */
        {2, {0, 0}, "per_node", 4, 2},                     /* 2 ranks, 1 IOC: 2          */
        {4, {0, 0, 0, 0}, "per_node", 4, 4},               /* 4 ranks, 1 IOC: 4          */
        {8, {0, 0, 0, 0, 0, 0, 0, 0}, "per_node", 4, 4},   /* capped at K                */
        {8, {0, 0, 0, 0, 0, 0, 0, 0}, "per_node", 8, 8},   /* K = 8                      */
        {8, {0, 0, 0, 0, 0, 0, 0, 0}, "per_node:2", 4, 8}, /* 2 IOCs x 4 ranks each: 8   */
        {8, {0, 0, 0, 0, 0, 0, 0, 0}, "per_node:4", 4, 8}, /* 4 IOCs x 2 ranks each: 8   */
        {4, {0, 0, 2, 2}, "per_node", 4, 4},               /* 2 nodes x 2 ranks: 2 x 2   */
        {4, {0, 0, 0, 3}, "per_node", 4, 2},               /* the 1-rank node decides    */
        {6, {0, 1, 2, 0, 1, 2}, "per_node", 4, 6},         /* 3 nodes x 2 ranks: 3 x 2   */
        {3, {0, 1, 2}, "per_node", 4, 3},                  /* a rank per node: 1 each    */
        {8, {0, 0, 0, 0, 0, 0, 0, 0}, "ranks:0;4", 4, 8},  /* listed IOCs, 4 ranks each  */
        {8, {0, 0, 0, 0, 0, 0, 0, 0}, "total:8", 4, 8},    /* every rank an IOC: 1 each  */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        h5sf_settings_t cfg  = cfg_of(c[i].ioc);
        h5sf_errbuf_t   e    = {0};
        int            *iocs = NULL, n = 0, nodes = 0;
        if (h5sf_iocmap_select(c[i].size, c[i].lead, &cfg, 0, &iocs, &n, &nodes, &e) < 0) {
            CHECK(0, "case %zu: %s", i, e.msg);
            continue;
        }
        int32_t got = h5sf_iocmap_default_count(c[i].size, c[i].lead, iocs, n, c[i].k);
        CHECK(got == c[i].want, "case %zu (%d ranks, %s, K=%d): default count %d, expected %d", i, c[i].size, c[i].ioc,
              c[i].k, (int)got, c[i].want);
        free(iocs);
    }
    /* Never over the limit: 65536 IOCs x K stays at the limit. */
    static int big_lead[70000], big_iocs[70000];
    for (int r = 0; r < 70000; r++)
        big_lead[r] = big_iocs[r] = r; /* every rank its own node and an IOC */
    CHECK(h5sf_iocmap_default_count(70000, big_lead, big_iocs, 65536, 4) == 65536, "over the limit");
}

static void bad_cases(void)
{
    h5sf_settings_t  c    = cfg_of("per_node");
    h5sf_errbuf_t    e    = {0};
    int             *iocs = NULL, n = 0, nodes = 0;
    static const int loop[] = {0, 2, 2}, ahead[] = {1, 1}, negative[] = {0, -1};
    CHECK(h5sf_iocmap_select(3, loop, &c, 0, &iocs, &n, &nodes, &e) < 0 && strstr(e.msg, "rank 1"),
          "a node named by a higher rank accepted (%s)", e.msg);
    CHECK(h5sf_iocmap_select(2, ahead, &c, 0, &iocs, &n, &nodes, &e) < 0, "lead[0] = 1 accepted");
    CHECK(h5sf_iocmap_select(2, negative, &c, 0, &iocs, &n, &nodes, &e) < 0, "lead -1 accepted");
    CHECK(!iocs && n == 0, "a failed selection left a list");
    c                      = cfg_of("ranks:0;5");
    static const int two[] = {0, 0};
    CHECK(h5sf_iocmap_select(2, two, &c, 0, &iocs, &n, &nodes, &e) < 0 && strstr(e.msg, "out of range"),
          "ranks:0;5 on 2 ranks: %s", e.msg);
}

/* ---- the built-in, transcribed ------------------------------------------ */

/* layout_t and its comparator (H5FD__subfiling_compare_layout_nodelocal). */
typedef struct {
    int rank, node_local_rank, node_local_size, node_lead_rank;
} layout_t;
static int cmp_layout(const void *a, const void *b)
{
    const layout_t *l1 = a, *l2 = b;
    if (l1->node_lead_rank == l2->node_lead_rank)
        return (l1->node_local_rank > l2->node_local_rank) - (l1->node_local_rank < l2->node_local_rank);
    return (l1->node_lead_rank > l2->node_lead_rank) - (l1->node_lead_rank < l2->node_lead_rank);
}

/* H5FD__subfiling_init_app_topology + init_app_layout + identify_ioc_ranks;
 * mode 0 one per node (per = H5FD_SUBFILING_IOC_PER_NODE), 1 every N-th,
 * 3 total; stripe_count -1 = default.  Returns the IOC count. */
static int builtin_select(int size, const int *lead, int mode, long val, int stripe_count, int *io)
{
    layout_t *layout     = malloc((size_t)size * sizeof *layout);
    int       node_count = 0, ioc_count = 1, rank_multiple = 1, n = 0;
    for (int r = 0; r < size; r++) { /* node_comm from split_type with key = rank */
        layout[r] = (layout_t){r, 0, 0, lead[r]};
        for (int q = 0; q < size; q++)
            if (lead[q] == lead[r]) {
                layout[r].node_local_size++;
                layout[r].node_local_rank += q < r;
            }
    }
    if (mode == 0)
        ioc_count = (int)val;
    else {
        if (val > size)
            val = size;
        ioc_count     = mode == 1 ? (size - 1) / (int)val + 1 : (int)val;
        rank_multiple = mode == 1 ? (int)val : val > 1 ? (size - 1) / ((int)val - 1) : 1;
    }
    qsort(layout, (size_t)size, sizeof *layout, cmp_layout);
    for (int i = 0; i < size; i++)
        node_count += layout[i].node_local_rank == 0;
    if (mode == 0)
        ioc_count = (int)val * node_count;
    if (stripe_count != -1 && ioc_count > stripe_count)
        ioc_count = stripe_count;

    int max_iocs = ioc_count;
    if (mode == 0) {
        int iocs_per_node = 1, last_lead_rank = layout[0].node_lead_rank;
        if (ioc_count > node_count)
            iocs_per_node = ioc_count / node_count;
        for (size_t i = 0, layout_idx = 0; i < (size_t)node_count; i++) {
            int local_size = layout[layout_idx].node_local_size;
            io[n++]        = layout[layout_idx++].rank;
            for (size_t j = 1; j < (size_t)iocs_per_node; j++) {
                if (n >= max_iocs || j >= (size_t)local_size)
                    break;
                io[n++] = layout[layout_idx++].rank;
            }
            if (n >= max_iocs)
                break;
            while (layout_idx < (size_t)size && last_lead_rank == layout[layout_idx].node_lead_rank)
                layout_idx++;
            if (layout_idx >= (size_t)size)
                break;
            last_lead_rank = layout[layout_idx].node_lead_rank;
        }
    }
    else
        for (int i = 0; n < max_iocs; n++) {
            int ioc_index = rank_multiple * i++;
            if (ioc_index >= size)
                break;
            io[n] = layout[ioc_index].rank;
        }
    free(layout);
    return n;
}

/* Random placements: ranks dealt to nodes by block, round robin or at random. */
static void against_builtin(void)
{
    static const char *names[] = {"per_node", "every", "", "total"};
    unsigned           seed    = 12345;
    int                cases   = 0;
    for (int it = 0; it < 4000; it++) {
        int size = 1 + (int)(rand_r(&seed) % 24), nodes = 1 + (int)(rand_r(&seed) % 5), how = it % 3;
        int node[24], lead[24], io[24], *iocs = NULL, n = 0, nn = 0;
        for (int r = 0; r < size; r++)
            node[r] = how == 0 ? r * nodes / size : how == 1 ? r % nodes : (int)(rand_r(&seed) % nodes);
        for (int r = 0; r < size; r++) { /* the lowest rank on the same node */
            lead[r] = r;
            for (int q = r - 1; q >= 0; q--)
                if (node[q] == node[r])
                    lead[r] = q;
        }
        int  mode = (int[]){0, 1, 3}[rand_r(&seed) % 3];
        long val  = 1 + (long)(rand_r(&seed) % 8);
        int  sc   = rand_r(&seed) % 3 ? -1 : 1 + (int)(rand_r(&seed) % 12);
        char ioc[32];
        snprintf(ioc, sizeof ioc, "%s:%ld", names[mode], val);
        h5sf_settings_t c  = cfg_of(ioc);
        h5sf_errbuf_t   e  = {0};
        int             bn = builtin_select(size, lead, mode, val, sc, io);
        if (h5sf_iocmap_select(size, lead, &c, sc < 0 ? 0 : sc, &iocs, &n, &nn, &e) < 0) {
            CHECK(0, "%s on %d ranks: %s", ioc, size, e.msg);
            continue;
        }
        if (n != bn || memcmp(iocs, io, (size_t)n * sizeof *io)) {
            char got[256], want[256], place[256];
            fmt(got, sizeof got, iocs, n);
            fmt(want, sizeof want, io, bn);
            fmt(place, sizeof place, node, size);
            CHECK(0, "%s, stripe_count %d, nodes of the ranks [%s]: h5sf [%s], built-in [%s]", ioc, sc, place, got,
                  want);
        }
        free(iocs);
        cases++;
    }
    printf("unit_topology: %d random placements agree with the built-in's selection\n", cases);
}

int main(void)
{
    t_start("unit_topology");
    default_count_cases();
    fixed_cases();
    bad_cases();
    against_builtin();
    return t_verdict();
}
