/*
 * t_slurm -- h5sf in a Slurm job: the nodes and IOCs follow Slurm's task
 * layout (run by test/slurm.sh on scripts/slurm-cluster.sh's cluster; works
 * the same in any Slurm job).
 *
 * Every rank finds its node: under srun the node slurmd started it on
 * (SLURMD_NODENAME, else the last part of SLURM_TOPOLOGY_ADDR); under an
 * MPI launcher inside an allocation its short hostname, because the
 * launcher, not Slurm, places the ranks there, and MPICH's Hydra passes the
 * batch script's environment, SLURMD_NODENAME included, to every rank.
 * From these names alone, never from MPI, it derives the IOCs --ioc should
 * pick, in the built-in driver's order (common/iocmap.c): the ranks node by
 * node, nodes in the order of their lowest rank; per_node:K the first K of
 * each node, every:N the positions 0, N, 2N, ... of that sequence, total:N
 * N positions at a stride of (size-1)/(N-1), ranks:LIST the listed ranks in
 * that sequence's order; never more IOCs than --stripe-count.  Checks:
 *   - MPI_COMM_TYPE_SHARED, which h5sf uses to find nodes, groups exactly
 *     the ranks of one node;
 *   - --job-nodes: every rank's node is one of the job's;
 *   - --launcher srun: SLURM_PROCID is the MPI rank, SLURM_STEP_NUM_TASKS
 *     the size, SLURM_LOCALID the rank's index on its node and SLURM_NODEID
 *     the same on a node and different across nodes;
 *   - --same-hostname (srun): every rank's hostname is its Slurm node name;
 *   - a 1-D dataset of 4 KiB blocks dealt round-robin to the ranks (so every
 *     rank writes to every subfile with 4 KiB stripes) is written
 *     collectively, H5FD_h5sf_get_layout reports the expected IOC count,
 *     subfile count and channel, and after reopening every rank reads
 *     another rank's blocks and compares them with the pattern.
 * Rank 0 prints, for test/slurm.sh to compare with h5sf's own log
 * (H5SF_LOG=debug) and with the subfiles on the nodes' storage:
 *   t_slurm: layout NODE=r,r,... NODE=...      (nodes in the order of their lowest rank)
 *   t_slurm: expected IOC ranks: i i ...
 *   t_slurm: subfile nodes: NODE NODE ...      (node of subfile 1, 2, ...)
 *
 * Usage: t_slurm --dir DIR [--ioc SPEC] [--stripe-count N] [--channel ioc|direct]
 *          [--subfile-dir DIR] [--launcher srun|mpirun] [--job-nodes N1,N2,...]
 *          [--same-hostname]
 *   Without --channel the environment decides (H5SF_CHANNEL, else auto).
 * Exit status 1 on any failure (agreed over all ranks).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define NAMELEN 256
#define BLOCK   1024 /* ints: 4 KiB, one stripe */
#define BLOCKS  16   /* per rank */

static struct {
    const char *dir, *ioc, *channel, *subfile_dir, *launcher, *job_nodes;
    int         stripe_count, same_hostname;
} O = {.ioc = "per_node", .stripe_count = 8, .launcher = "mpirun"};

static char (*node)[NAMELEN]; /* Slurm node of every rank */
static int *seq;              /* the ranks node by node   */
static int  nnodes;

static void usage_exit(const char *why)
{
    if (t_rank == 0)
        fprintf(stderr,
                "t_slurm: %s\nusage: t_slurm --dir DIR [--ioc SPEC] [--stripe-count N] "
                "[--channel ioc|direct] [--subfile-dir DIR] [--launcher srun|mpirun] [--job-nodes LIST] "
                "[--same-hostname]\n",
                why);
    MPI_Finalize();
    exit(2);
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (!strcmp(k, "--same-hostname")) {
            O.same_hostname = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v)
            usage_exit("option without value");
        if (!strcmp(k, "--dir"))
            O.dir = v;
        else if (!strcmp(k, "--ioc"))
            O.ioc = v;
        else if (!strcmp(k, "--stripe-count"))
            O.stripe_count = atoi(v);
        else if (!strcmp(k, "--channel"))
            O.channel = v;
        else if (!strcmp(k, "--subfile-dir"))
            O.subfile_dir = v;
        else if (!strcmp(k, "--launcher"))
            O.launcher = v;
        else if (!strcmp(k, "--job-nodes"))
            O.job_nodes = v;
        else
            usage_exit("unknown option");
    }
    if (!O.dir)
        usage_exit("--dir is required");
    if (O.stripe_count < 1)
        usage_exit("--stripe-count wants a positive number");
    if (O.channel && strcmp(O.channel, "ioc") && strcmp(O.channel, "direct"))
        usage_exit("--channel wants ioc or direct");
    if (strcmp(O.launcher, "srun") && strcmp(O.launcher, "mpirun"))
        usage_exit("--launcher wants srun or mpirun");
}

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : -1;
}

static int same_node(int a, int b) { return !strcmp(node[a], node[b]); }

/* This rank's node, gathered from every rank; the checks of the SLURM_*
 * task variables under srun. */
static void slurm_layout(void)
{
    char me[NAMELEN] = {0}, host[NAMELEN] = {0};
    int  srun = !strcmp(O.launcher, "srun");
    if (gethostname(host, sizeof host - 1) < 0)
        CHECK(0, "gethostname: %s", strerror(errno));
    host[strcspn(host, ".")] = '\0';
    if (srun) {
        const char *v = getenv("SLURMD_NODENAME");
        if (!v || !*v) { /* SLURM_TOPOLOGY_ADDR: "switch.switch.node", or just "node" */
            const char *t = getenv("SLURM_TOPOLOGY_ADDR");
            v             = t && strrchr(t, '.') ? strrchr(t, '.') + 1 : t;
        }
        if (!v || !*v) {
            CHECK(0, "neither SLURMD_NODENAME nor SLURM_TOPOLOGY_ADDR is set: not started by srun");
            v = "?";
        }
        snprintf(me, sizeof me, "%s", v);
        if (O.same_hostname && strcmp(host, me))
            CHECK(0, "hostname '%s' is not the Slurm node name '%s'", host, me);
    }
    else
        snprintf(me, sizeof me, "%s", host);
    if (O.job_nodes) {
        int found = 0;
        for (const char *p = O.job_nodes; p && !found;) {
            const char *end = strchr(p, ',');
            size_t      len = end ? (size_t)(end - p) : strlen(p);
            found           = len == strlen(me) && !strncmp(p, me, len);
            p               = end ? end + 1 : NULL;
        }
        if (!found)
            CHECK(0, "node '%s' is not one of the job's nodes (%s)", me, O.job_nodes);
    }
    node = calloc((size_t)t_size, NAMELEN);
    seq  = malloc((size_t)t_size * sizeof *seq);
    if (!node || !seq)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Allgather(me, NAMELEN, MPI_CHAR, node, NAMELEN, MPI_CHAR, MPI_COMM_WORLD);

    int local = 0, nodeid = env_int("SLURM_NODEID"), *ids = malloc((size_t)t_size * sizeof *ids);
    if (!ids)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int r = 0; r < t_rank; r++)
        local += same_node(r, t_rank);
    MPI_Allgather(&nodeid, 1, MPI_INT, ids, 1, MPI_INT, MPI_COMM_WORLD);
    if (srun) {
        int ntasks = env_int("SLURM_STEP_NUM_TASKS") >= 0 ? env_int("SLURM_STEP_NUM_TASKS") : env_int("SLURM_NTASKS");
        if (env_int("SLURM_PROCID") != t_rank)
            CHECK(0, "SLURM_PROCID is %d, MPI rank %d", env_int("SLURM_PROCID"), t_rank);
        if (ntasks != t_size)
            CHECK(0, "Slurm has %d tasks in the step, MPI %d ranks", ntasks, t_size);
        if (env_int("SLURM_LOCALID") != local)
            CHECK(0, "SLURM_LOCALID is %d, but rank %d is rank %d of the ranks on %s", env_int("SLURM_LOCALID"), t_rank,
                  local, me);
        for (int r = 0; r < t_size; r++)
            if ((ids[r] == nodeid) != same_node(r, t_rank))
                CHECK(0, "SLURM_NODEID %d of rank %d (%s) vs %d of rank %d (%s)", ids[r], r, node[r], nodeid, t_rank,
                      me);
    }
    free(ids);

    /* The sequence every IOC mode picks from: node by node. */
    int n  = 0;
    nnodes = 0;
    for (int r = 0; r < t_size; r++) {
        int first = 1;
        for (int q = 0; q < r; q++)
            first &= !same_node(q, r);
        if (!first)
            continue;
        nnodes++;
        for (int q = r; q < t_size; q++)
            if (same_node(q, r))
                seq[n++] = q;
    }
}

/* h5sf finds nodes with MPI_COMM_TYPE_SHARED: it must see Slurm's nodes. */
static void check_shared_split(void)
{
    MPI_Comm c;
    int      csize, crank, lead, leads;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, t_rank, MPI_INFO_NULL, &c) != MPI_SUCCESS) {
        CHECK(0, "MPI_Comm_split_type failed");
        return;
    }
    MPI_Comm_size(c, &csize);
    MPI_Comm_rank(c, &crank);
    int *members = malloc((size_t)csize * sizeof *members), mine = 0;
    if (!members)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Allgather(&t_rank, 1, MPI_INT, members, 1, MPI_INT, c);
    for (int i = 0; i < csize; i++)
        if (!same_node(members[i], t_rank))
            CHECK(0, "MPI_COMM_TYPE_SHARED puts rank %d (Slurm node %s) with rank %d (%s)", members[i],
                  node[members[i]], t_rank, node[t_rank]);
    for (int r = 0; r < t_size; r++)
        mine += same_node(r, t_rank);
    if (mine != csize)
        CHECK(0, "Slurm node %s has %d ranks, its MPI_COMM_TYPE_SHARED communicator %d", node[t_rank], mine, csize);
    lead = crank == 0;
    MPI_Allreduce(&lead, &leads, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (leads != nnodes)
        CHECK(0, "MPI_COMM_TYPE_SHARED sees %d nodes, Slurm %d", leads, nnodes);
    free(members);
    MPI_Comm_free(&c);
}

/* The IOC list O.ioc should give on Slurm's layout; returns its length. */
static int expected_iocs(int *iocs)
{
    const char *colon = strchr(O.ioc, ':');
    int         p = colon ? atoi(colon + 1) : 1, n = 0, sc = O.stripe_count;
    if (!strncmp(O.ioc, "per_node", 8)) {
        int want = p * nnodes, each, k = 0;
        if (want > sc)
            want = sc;
        each = want > nnodes ? want / nnodes : 1;
        for (int i = 0; i < t_size && n < want; i++) {
            k = i == 0 || !same_node(seq[i], seq[i - 1]) ? 0 : k + 1;
            if (k < each)
                iocs[n++] = seq[i];
        }
    }
    else if (!strncmp(O.ioc, "every:", 6) || !strncmp(O.ioc, "total:", 6)) {
        int every = O.ioc[0] == 'e';
        if (p > t_size)
            p = t_size;
        int step  = every ? p : p > 1 ? (t_size - 1) / (p - 1) : 1;
        int count = every ? (t_size - 1) / p + 1 : p;
        if (count > sc)
            count = sc;
        for (int i = 0; i < count; i++)
            iocs[n++] = seq[i * step];
    }
    else if (!strncmp(O.ioc, "ranks:", 6)) {
        char *in = calloc((size_t)t_size, 1), *list = strdup(O.ioc + 6), *save = NULL;
        if (!in || !list)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (char *t = strtok_r(list, ";", &save); t; t = strtok_r(NULL, ";", &save))
            if (atoi(t) >= 0 && atoi(t) < t_size)
                in[atoi(t)] = 1;
        for (int i = 0; i < t_size && n < sc; i++)
            if (in[seq[i]])
                iocs[n++] = seq[i];
        free(in);
        free(list);
    }
    else
        usage_exit("--ioc wants per_node[:K], every:N, total:N or ranks:R;R...");
    return n;
}


static hid_t fapl_for(void)
{
    char  cfg[4096];
    int   w    = snprintf(cfg, sizeof cfg, "stripe_size=4KiB,stripe_count=%d,ioc=%s", O.stripe_count, O.ioc);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (O.channel)
        w += snprintf(cfg + w, sizeof cfg - (size_t)w, ",channel=%s", O.channel);
    if (O.subfile_dir)
        snprintf(cfg + w, sizeof cfg - (size_t)w, ",subfile_dir=%s", O.subfile_dir);
    H5VRFY(fapl);
    H5VRFY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    H5VRFY(H5Pset_driver_by_name(fapl, "h5sf", cfg));
    return fapl;
}

/* Blocks owner, owner + size, ...: owner's share of the dataset. */
static hid_t share_of(hid_t fs, int owner)
{
    hsize_t start = (hsize_t)owner * BLOCK, stride = (hsize_t)t_size * BLOCK, count = BLOCKS, block = BLOCK;
    H5VRFY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &stride, &count, &block));
    return fs;
}

static void roundtrip(int nioc)
{
    char path[4096];
    int  buf[BLOCK * BLOCKS];
    snprintf(path, sizeof path, "%s/slurm.h5", O.dir);
    hsize_t dims = (hsize_t)t_size * BLOCK * BLOCKS, n = BLOCK * BLOCKS;
    hid_t   fapl = fapl_for(), dxpl = H5Pcreate(H5P_DATASET_XFER), ms = H5Screate_simple(1, &n, NULL);
    H5VRFY(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));

    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5VRFY(f);
    hid_t fs = H5Screate_simple(1, &dims, NULL);
    hid_t d  = H5Dcreate2(f, "blocks", H5T_STD_I32LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5VRFY(d);
    for (long b = 0; b < BLOCKS; b++)
        for (long i = 0; i < BLOCK; i++)
            buf[b * BLOCK + i] = t_pat_int(1, ((long)t_rank + b * t_size) * BLOCK + i);
    H5VRFY(H5Dwrite(d, H5T_NATIVE_INT, ms, share_of(fs, t_rank), dxpl, buf));

    H5FD_h5sf_layout_t l;
    H5VRFY(H5FD_h5sf_get_layout(f, &l));
    int want_chan = O.channel ? (!strcmp(O.channel, "ioc") ? H5FD_H5SF_CHANNEL_IOC : H5FD_H5SF_CHANNEL_DIRECT) : -1;
    if (l.ioc_count != nioc)
        CHECK(0, "h5sf reports %d IOCs, Slurm's layout gives %d for ioc=%s", (int)l.ioc_count, nioc, O.ioc);
    if (l.stripe_count != O.stripe_count)
        CHECK(0, "h5sf reports %d subfiles, asked for %d", (int)l.stripe_count, O.stripe_count);
    if (want_chan >= 0 && l.channel != want_chan)
        CHECK(0, "h5sf uses channel %d, asked for %s", (int)l.channel, O.channel);
    H5VRFY(H5Dclose(d));
    H5VRFY(H5Fclose(f));

    /* A new open; every rank reads the next rank's share. */
    H5VRFY(f = H5Fopen(path, H5F_ACC_RDONLY, fapl));
    H5VRFY(d = H5Dopen2(f, "blocks", H5P_DEFAULT));
    int other = (t_rank + 1) % t_size, bad = 0;
    memset(buf, 0, sizeof buf);
    H5VRFY(H5Dread(d, H5T_NATIVE_INT, ms, share_of(fs, other), dxpl, buf));
    for (long b = 0; b < BLOCKS; b++)
        for (long i = 0; i < BLOCK; i++) {
            int want = t_pat_int(1, ((long)other + b * t_size) * BLOCK + i);
            if (buf[b * BLOCK + i] != want && bad++ < 3)
                CHECK(0, "block %ld of rank %d, element %ld: %d, expected %d", b, other, i, buf[b * BLOCK + i], want);
        }
    H5VRFY(H5Dclose(d));
    H5VRFY(H5Fclose(f));
    H5Sclose(fs);
    H5Sclose(ms);
    H5Pclose(dxpl);
    H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    int provided = t_init(&argc, &argv, "t_slurm");
    parse(argc, argv);
    if (O.channel && !strcmp(O.channel, "ioc") && provided != MPI_THREAD_MULTIPLE)
        CHECK(0, "the IOC channel needs MPI_THREAD_MULTIPLE, MPI gives thread level %d", provided);
    if (t_rank == 0 && mkdir(O.dir, 0755) < 0 && errno != EEXIST)
        CHECK(0, "mkdir %s: %s", O.dir, strerror(errno));

    slurm_layout();
    check_shared_split();
    int *iocs = malloc((size_t)t_size * sizeof *iocs);
    if (!iocs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    int nioc = expected_iocs(iocs);
    if (t_rank == 0) {
        printf("t_slurm: %d ranks on %d Slurm node(s), launched by %s, ioc=%s, %d subfile(s)\n", t_size, nnodes,
               O.launcher, O.ioc, O.stripe_count);
        printf("t_slurm: layout");
        for (int i = 0; i < t_size; i++)
            if (i == 0 || !same_node(seq[i], seq[i - 1]))
                printf(" %s=%d", node[seq[i]], seq[i]);
            else
                printf(",%d", seq[i]);
        printf("\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    roundtrip(nioc);

    if (t_rank == 0) {
        printf("t_slurm: expected IOC ranks:");
        for (int i = 0; i < nioc; i++)
            printf(" %d", iocs[i]);
        printf("\nt_slurm: subfile nodes:");
        for (int s = 0; s < O.stripe_count; s++)
            printf(" %s", node[iocs[s % nioc]]);
        printf("\n");
    }
    free(iocs);
    return t_finish(); /* "t_slurm: passed" is what test/slurm.sh looks for */
}
