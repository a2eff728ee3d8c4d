/*
 * t_multinode -- h5sf across hosts (run by test/multinode.sh through
 * scripts/netns-cluster.sh; works the same on a real cluster).
 *
 * Every phase first checks the topology from the hostnames alone: the
 * number of distinct hostnames is --hosts, and MPI_Comm_split_type(
 * MPI_COMM_TYPE_SHARED) groups exactly the ranks of one host.  From the
 * hostnames it derives, independently of h5sf, the I/O concentrators --ioc
 * should pick and their order, which is the built-in driver's: the ranks
 * host by host (hosts in the order of their lowest rank, ranks ascending
 * within a host); per_node:K takes the first K of each host, every:N the
 * positions 0, N, 2N, ... of that sequence, total:N N positions at a
 * stride of (size-1)/(N-1); never more IOCs than --stripe-count.  Subfile
 * s belongs to IOC s mod nioc of that list, so the order decides the host
 * of every subfile.
 *
 *   write         write a file through h5sf (IOC channel, subfiles in
 *                 --subfile-dir, stub and config in --dir) and the same data
 *                 through the MPI-IO driver (--dir/<name>-ref.h5); check
 *                 the IOC count h5sf reports and, with --storage, where
 *                 every subfile landed: on the host of its expected IOC and
 *                 on no other; then read back as in 'read'
 *   read          reopen (a new job, same placement) and compare every
 *                 dataset with the pattern and with the MPI-IO file; with
 *                 --builtin 1 then the same through HDF5's built-in
 *                 subfiling driver; with --builtin 2 also the other way
 *                 round: the built-in writes <name>-builtin.h5 (placement
 *                 checked as above), h5sf reads it.  The built-in gets the
 *                 same selection and subfile count as h5sf (fapl and
 *                 H5FD_SUBFILING_IOC_PER_NODE / _SELECTION_CRITERIA)
 *   crash         create a file and keep writing (collective write + flush)
 *                 until killed; creates --marker once writing; exits 0
 *                 only if nothing stopped it (the caller treats that as a
 *                 failure)
 *   topo          only the topology checks
 *
 * Usage: t_multinode PHASE --hosts N [--ioc per_node[:K]|every:N|total:N] [--dir DIR]
 *          [--subfile-dir DIR] [--storage ROOT --node-local MOUNT]
 *          [--name NAME] [--stripe-count C] [--builtin 0|1|2] [--marker FILE]
 *   --storage ROOT, --node-local MOUNT: host H's node-local MOUNT is
 *   ROOT/H seen from everywhere (netns-cluster.sh: <state>/hosts and
 *   <state>/local); --subfile-dir must then lie under MOUNT.
 * Exit status 1 on any failure (agreed over all ranks).
 * The datasets and their checks are in t_multinode_data.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "t_multinode.h"

/* ---- options ------------------------------------------------------------ */

static struct {
    const char *phase, *dir, *subfile_dir, *storage, *node_local, *name, *marker;
    const char *ioc;   /* as given: per_node[:K], every:N or total:N         */
    int         mode;  /* the built-in's SELECT_IOC_ONE_PER_NODE, _EVERY_NTH_RANK, _TOTAL */
    int         param; /* K or N                                             */
    int         hosts, stripe_count, builtin;
} O = {.name = "mn", .ioc = "per_node", .mode = SELECT_IOC_ONE_PER_NODE, .param = 1};

static void usage_exit(const char *why)
{
    if (t_rank == 0)
        fprintf(
            stderr,
            "t_multinode: %s\nusage: t_multinode topo|write|read|crash --hosts N "
            "[--ioc per_node[:K]|every:N|total:N] [--dir DIR] [--subfile-dir DIR] [--storage ROOT --node-local MOUNT] "
            "[--name NAME] [--stripe-count C] [--builtin 0|1|2] [--marker FILE]\n",
            why);
    MPI_Finalize();
    exit(2);
}

static void parse(int argc, char **argv)
{
    if (argc < 2)
        usage_exit("no phase");
    O.phase = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage_exit("option without value");
        i++;
        if (!strcmp(k, "--hosts"))
            O.hosts = atoi(v);
        else if (!strcmp(k, "--ioc")) {
            const char *colon = strchr(v, ':');
            O.ioc             = v;
            O.param           = colon ? atoi(colon + 1) : 1;
            if (!strcmp(v, "per_node") || !strncmp(v, "per_node:", 9))
                O.mode = SELECT_IOC_ONE_PER_NODE;
            else if (!strncmp(v, "every:", 6))
                O.mode = SELECT_IOC_EVERY_NTH_RANK;
            else if (!strncmp(v, "total:", 6))
                O.mode = SELECT_IOC_TOTAL;
            else
                O.param = 0;
            if (O.param < 1)
                usage_exit("--ioc wants per_node, per_node:K, every:N or total:N");
        }
        else if (!strcmp(k, "--dir"))
            O.dir = v;
        else if (!strcmp(k, "--subfile-dir"))
            O.subfile_dir = v;
        else if (!strcmp(k, "--storage"))
            O.storage = v;
        else if (!strcmp(k, "--node-local"))
            O.node_local = v;
        else if (!strcmp(k, "--name"))
            O.name = v;
        else if (!strcmp(k, "--stripe-count"))
            O.stripe_count = atoi(v);
        else if (!strcmp(k, "--builtin"))
            O.builtin = atoi(v);
        else if (!strcmp(k, "--marker"))
            O.marker = v;
        else
            usage_exit("unknown option");
    }
    if (O.hosts < 1)
        usage_exit("--hosts N is required");
    if (strcmp(O.phase, "topo") && !O.dir)
        usage_exit("--dir is required");
    if (!O.subfile_dir)
        O.subfile_dir = O.dir;
    if (!O.storage != !O.node_local)
        usage_exit("--storage and --node-local go together");
    if (O.node_local && strncmp(O.subfile_dir, O.node_local, strlen(O.node_local)))
        usage_exit("--subfile-dir must lie under --node-local");
}

/* ---- topology from hostnames --------------------------------------------- */

static char (*g_host)[HOSTLEN]; /* hostname of every rank        */
static int *g_ioc;              /* expected IOC ranks, in order  */
static int  g_nioc;

static int same_host(int a, int b) { return !strcmp(g_host[a], g_host[b]); }

/* The IOC list --ioc should give on these hosts, the built-in's way
 * (H5FD__subfiling_identify_ioc_ranks), with its cap at the subfile count. */
static void expected_iocs(int nhosts)
{
    int *seq = malloc((size_t)t_size * sizeof *seq), *nth = malloc((size_t)t_size * sizeof *nth), n = 0;
    if (!seq || !nth)
        VRFY(0, "malloc failed");
    for (int r = 0; r < t_size; r++) { /* host by host: a host starts at its lowest rank */
        int first = 1;
        for (int q = 0; q < r; q++)
            first &= !same_host(q, r);
        for (int q = r, k = 0; first && q < t_size; q++)
            if (same_host(q, r)) {
                nth[n]   = k++; /* q is the k-th rank of its host */
                seq[n++] = q;
            }
    }
    int p = O.param, sc = O.stripe_count; /* sc 0: as many subfiles as IOCs */
    if (O.mode == SELECT_IOC_ONE_PER_NODE) {
        /* K x hosts capped at the subfiles, then count / hosts (at least 1) per host */
        int want = p * nhosts, each;
        if (sc > 0 && want > sc)
            want = sc;
        each = want > nhosts ? want / nhosts : 1;
        for (int i = 0; i < t_size && g_nioc < want; i++)
            if (nth[i] < each)
                g_ioc[g_nioc++] = seq[i];
    }
    else {
        if (p > t_size)
            p = t_size;
        int step  = O.mode == SELECT_IOC_EVERY_NTH_RANK ? p : p > 1 ? (t_size - 1) / (p - 1) : 1;
        int count = O.mode == SELECT_IOC_EVERY_NTH_RANK ? (t_size - 1) / p + 1 : p;
        if (sc > 0 && count > sc)
            count = sc;
        for (int i = 0; i < count; i++)
            g_ioc[g_nioc++] = seq[i * step];
    }
    free(seq);
    free(nth);
}

static void topology(void)
{
    char me[HOSTLEN] = {0};
    if (gethostname(me, sizeof me - 1) < 0)
        VRFY(0, "gethostname failed");
    g_host = calloc((size_t)t_size, HOSTLEN);
    g_ioc  = calloc((size_t)t_size, sizeof *g_ioc);
    if (!g_host || !g_ioc)
        VRFY(0, "calloc failed");
    MPI_Allgather(me, HOSTLEN, MPI_CHAR, g_host, HOSTLEN, MPI_CHAR, MPI_COMM_WORLD);

    int nhosts = 0;
    for (int r = 0; r < t_size; r++) {
        int first = 1;
        for (int q = 0; q < r; q++)
            first &= !same_host(q, r);
        nhosts += first;
    }
    if (nhosts != O.hosts)
        CHECK(0, "%d distinct hostnames, expected %d hosts", nhosts, O.hosts);
    expected_iocs(nhosts);

    /* MPI's idea of a node must be exactly one host. */
    MPI_Comm node;
    int      nsize, nrank, mine = 0, leaders = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        VRFY(0, "MPI_Comm_split_type failed");
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    int *members = malloc((size_t)nsize * sizeof *members);
    if (!members)
        VRFY(0, "malloc failed");
    MPI_Allgather(&t_rank, 1, MPI_INT, members, 1, MPI_INT, node);
    for (int i = 0; i < nsize; i++)
        if (!same_host(members[i], t_rank))
            CHECK(0, "MPI_COMM_TYPE_SHARED puts rank %d (%s) on the node of rank %d (%s)", members[i],
                  g_host[members[i]], t_rank, me);
    for (int r = 0; r < t_size; r++)
        mine += same_host(r, t_rank);
    if (mine != nsize)
        CHECK(0, "host %s has %d ranks but its MPI_COMM_TYPE_SHARED communicator %d", me, mine, nsize);
    int lead = nrank == 0;
    MPI_Allreduce(&lead, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (leaders != O.hosts)
        CHECK(0, "MPI_COMM_TYPE_SHARED sees %d nodes, expected %d hosts", leaders, O.hosts);
    free(members);
    MPI_Comm_free(&node);
    if (t_rank == 0) {
        printf("t_multinode: %d ranks on %d hosts, %d node(s) by MPI_COMM_TYPE_SHARED; ioc=%s; expected IOC ranks:",
               t_size, nhosts, leaders, O.ioc);
        for (int i = 0; i < g_nioc; i++)
            printf(" %d", g_ioc[i]);
        printf("\nt_multinode: their hosts:");
        for (int i = 0; i < g_nioc; i++)
            printf(" %s", g_host[g_ioc[i]]);
        printf("\n");
        fflush(stdout);
    }
}

/* ---- files and drivers ----------------------------------------------------- */

static void path_of(char *buf, size_t n, const char *suffix)
{
    if (snprintf(buf, n, "%s/%s%s.h5", O.dir, O.name, suffix) >= (int)n)
        VRFY(0, "path too long failed");
}

static hid_t h5sf_fapl(void)
{
    char  s[3 * H5FD_H5SF_PATH_MAX];
    hid_t fapl = H5VRFY(H5Pcreate(H5P_FILE_ACCESS));
    H5VRFY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    /* Small stripes so every dataset crosses every subfile and host. */
    snprintf(s, sizeof s,
             "stripe_size=4096,stripe_count=%d,ioc=%s,channel=ioc,threads=2,timeout=60,"
             "subfile_dir=%s,config_dir=%s",
             O.stripe_count, O.ioc, O.subfile_dir, O.dir);
    H5VRFY(H5Pset_driver_by_name(fapl, H5FD_H5SF_NAME, s));
    return fapl;
}

static hid_t mpio_fapl(void)
{
    hid_t fapl = H5VRFY(H5Pcreate(H5P_FILE_ACCESS));
    H5VRFY(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    return fapl;
}

/* The built-in takes the IOC count per node, N of every:N and total:N from
 * the environment only (H5FD__subfiling_init_app_topology reads it at every
 * open).  Set only around the built-in's opens: h5sf reads these variables
 * too, and must get --ioc from its config string. */
static void builtin_ioc_env(int on)
{
    char v[64];
    if (!on) {
        unsetenv("H5FD_SUBFILING_IOC_PER_NODE");
        unsetenv("H5FD_SUBFILING_IOC_SELECTION_CRITERIA");
        return;
    }
    snprintf(v, sizeof v, O.mode == SELECT_IOC_ONE_PER_NODE ? "%d" : "%d:%d",
             O.mode == SELECT_IOC_ONE_PER_NODE ? O.param : O.mode, O.param);
    if (setenv(O.mode == SELECT_IOC_ONE_PER_NODE ? "H5FD_SUBFILING_IOC_PER_NODE"
                                                 : "H5FD_SUBFILING_IOC_SELECTION_CRITERIA",
               v, 1) < 0)
        VRFY(0, "setenv failed");
}

static hid_t builtin_fapl(void)
{
    hid_t                   fapl = H5VRFY(H5Pcreate(H5P_FILE_ACCESS));
    H5FD_subfiling_config_t cfg;
    H5FD_ioc_config_t       ioc;
    H5VRFY(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    H5VRFY(H5Pget_fapl_subfiling(fapl, &cfg));
    H5VRFY(H5Pget_fapl_ioc(cfg.ioc_fapl_id, &ioc));
    ioc.thread_pool_size = 2;
    H5VRFY(H5Pset_fapl_ioc(cfg.ioc_fapl_id, &ioc));
    cfg.require_ioc              = true;
    cfg.shared_cfg.ioc_selection = (H5FD_subfiling_ioc_select_t)O.mode;
    /* Small enough that the file (~0.5 MB) crosses every subfile and host;
     * 4 KiB stripes, as h5sf writes, make the built-in's write slow here. */
    cfg.shared_cfg.stripe_size = 65536;
    if (O.stripe_count > 0)
        cfg.shared_cfg.stripe_count = O.stripe_count;
    H5VRFY(H5Pset_fapl_subfiling(fapl, &cfg));
    H5Pclose(cfg.ioc_fapl_id);
    return fapl;
}

/* The subfile count a new file gets with stripe_count unset: the built-in
 * one per IOC; h5sf per IOC min(4, ranks per IOC on the host whose IOCs
 * serve the fewest), worked out here from the host names. */
static int default_count(int by_builtin)
{
    int k = 4;
    if (by_builtin)
        return g_nioc;
    for (int i = 0; i < g_nioc; i++) {
        int ranks = 0, iocs = 0;
        for (int r = 0; r < t_size; r++)
            ranks += same_host(r, g_ioc[i]);
        for (int j = 0; j < g_nioc; j++)
            iocs += same_host(g_ioc[j], g_ioc[i]);
        if (ranks / iocs < k)
            k = ranks / iocs;
    }
    return g_nioc * (k > 1 ? k : 1);
}

static void check_layout(hid_t file, const char *ctx, int by_builtin)
{
    H5FD_h5sf_layout_t l;
    int                want_count = O.stripe_count > 0 ? O.stripe_count : default_count(by_builtin);
    if (H5FD_h5sf_get_layout(file, &l) < 0) {
        CHECK(0, "%s: H5FD_h5sf_get_layout failed", ctx);
        return;
    }
    if (l.ioc_count != g_nioc || l.stripe_count != want_count || l.channel != H5FD_H5SF_CHANNEL_IOC)
        CHECK(0,
              "%s: h5sf reports %d IOCs, %d subfiles, channel %d; expected %d IOCs (ioc=%s), %d subfiles, "
              "the IOC channel",
              ctx, l.ioc_count, l.stripe_count, (int)l.channel, g_nioc, O.ioc, want_count);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Rank 0: subfile s must sit in the storage of the host of IOC s mod nioc
 * and nowhere else; the config file in --dir; no subfile in --dir. */
static void check_placement(const char *stub, const char *suffix)
{
    struct stat st;
    char        name[1024], p[8192];
    const char *rel   = O.subfile_dir + strlen(O.node_local);
    int         count = O.stripe_count > 0 ? O.stripe_count : default_count(!strcmp(suffix, "-builtin")), digits = 1;
    if (stat(stub, &st) < 0) {
        CHECK(0, "stub %s: %s", stub, strerror(errno));
        return;
    }
    for (int n = count; n >= 10; n /= 10) /* (int)(log10(n) + 1), as the built-in */
        digits++;
    char base[512];
    snprintf(base, sizeof base, "%s%s.h5", O.name, suffix);
    snprintf(name, sizeof name, H5FD_SUBFILING_CONFIG_FILENAME_TEMPLATE, base, (uint64_t)st.st_ino);
    snprintf(p, sizeof p, "%s/%s", O.dir, name);
    if (!exists(p))
        CHECK(0, "config file %s missing from the shared directory", p);
    for (int s = 0; s < count; s++) {
        const char *want = g_host[g_ioc[s % g_nioc]];
        if (snprintf(name, sizeof name, H5FD_SUBFILING_FILENAME_TEMPLATE, base, (uint64_t)st.st_ino, digits, s + 1,
                     count) >= (int)sizeof name)
            VRFY(0, "subfile name too long failed");
        snprintf(p, sizeof p, "%s/%s", O.dir, name);
        if (exists(p))
            CHECK(0, "subfile %s is in the shared directory", p);
        for (int r = 0; r < t_size; r++) {
            int first = 1;
            for (int q = 0; q < r; q++)
                first &= !same_host(q, r);
            if (!first)
                continue;
            snprintf(p, sizeof p, "%s/%s%s/%s", O.storage, g_host[r], rel, name);
            int here = exists(p), should = !strcmp(g_host[r], want);
            if (here != should)
                CHECK(0, "subfile %d (%s) %s on host %s; its IOC is rank %d on %s", s + 1, name,
                      here ? "is" : "is missing", g_host[r], g_ioc[s % g_nioc], want);
        }
    }
    if (!t_fails)
        printf("t_multinode: %d subfiles each on the host of its IOC (%s/<host>%s)\n", count, O.storage, rel);
}

/* Progress with elapsed time on rank 0 (information only, nothing checks it). */
static void stamp(const char *what)
{
    double        now = t_now_s();
    static double t0;
    if (t0 == 0)
        t0 = now;
    if (t_rank == 0) {
        printf("t_multinode: %6.2f s  %s\n", now - t0, what);
        fflush(stdout);
    }
}

static int agree(void)
{
    long mine = t_fails, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all == 0;
}

int main(int argc, char **argv)
{
    t_init_multiple(&argc, &argv, "t_multinode"); /* the IOC channel needs it */
    parse(argc, argv);
    stamp("MPI initialized");
    topology();
    if (!agree()) /* a wrong topology makes every later check meaningless */
        goto out;

    char stub[8192], refp[8192];
    path_of(stub, sizeof stub, "");
    path_of(refp, sizeof refp, "-ref");
    hid_t file, ref;
    if (!strcmp(O.phase, "write")) {
        hid_t fapl = h5sf_fapl(), mfapl = mpio_fapl();
        file = H5VRFY(H5Fcreate(stub, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        check_layout(file, "write", 0);
        write_data(file, 0);
        H5VRFY(H5Fclose(file));
        stamp("h5sf file written");
        ref = H5VRFY(H5Fcreate(refp, H5F_ACC_TRUNC, H5P_DEFAULT, mfapl));
        write_data(ref, 0);
        H5VRFY(H5Fclose(ref));
        stamp("MPI-IO reference written");
        if (t_rank == 0 && O.storage)
            check_placement(stub, "");
        file = H5VRFY(H5Fopen(stub, H5F_ACC_RDONLY, fapl));
        ref  = H5VRFY(H5Fopen(refp, H5F_ACC_RDONLY, mfapl));
        check(file, ref, "read back in the writing job");
        stamp("read back and compared");
        H5Fclose(file), H5Fclose(ref), H5Pclose(fapl), H5Pclose(mfapl);
    }
    else if (!strcmp(O.phase, "read")) {
        hid_t fapl = h5sf_fapl(), mfapl = mpio_fapl();
        ref  = H5VRFY(H5Fopen(refp, H5F_ACC_RDONLY, mfapl));
        file = H5VRFY(H5Fopen(stub, H5F_ACC_RDONLY, fapl));
        check_layout(file, "read", 0);
        check(file, ref, "h5sf read in a second job");
        H5Fclose(file), H5Pclose(fapl);
        stamp("h5sf read and compared");
        if (O.builtin) {
            /* The built-in takes the directories from the environment only; its
             * config file goes next to the subfiles unless told otherwise. */
            if (setenv("H5FD_SUBFILING_SUBFILE_PREFIX", O.subfile_dir, 1) < 0 ||
                setenv("H5FD_SUBFILING_CONFIG_FILE_PREFIX", O.dir, 1) < 0)
                VRFY(0, "setenv failed");
            builtin_ioc_env(1);
            fapl = builtin_fapl();
            file = H5VRFY(H5Fopen(stub, H5F_ACC_RDONLY, fapl));
            check(file, ref, "built-in subfiling driver reads the h5sf file");
            H5Fclose(file), H5Pclose(fapl);
            builtin_ioc_env(0);
            stamp("built-in subfiling driver read the h5sf file");
        }
        if (O.builtin > 1) {
            /* And the other way: the built-in writes, h5sf reads. */
            char bstub[8192];
            path_of(bstub, sizeof bstub, "-builtin");
            builtin_ioc_env(1);
            fapl = builtin_fapl();
            file = H5VRFY(H5Fcreate(bstub, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            write_data(file, 0);
            H5VRFY(H5Fclose(file));
            H5Pclose(fapl);
            builtin_ioc_env(0);
            if (t_rank == 0 && O.storage)
                check_placement(bstub, "-builtin");
            fapl = h5sf_fapl();
            file = H5VRFY(H5Fopen(bstub, H5F_ACC_RDONLY, fapl));
            check_layout(file, "h5sf opens the built-in file", 1);
            check(file, ref, "h5sf reads the built-in file");
            H5Fclose(file), H5Pclose(fapl);
            stamp("built-in subfiling driver wrote, h5sf read");
        }
        H5Fclose(ref), H5Pclose(mfapl);
    }
    else if (!strcmp(O.phase, "crash")) {
        hid_t fapl = h5sf_fapl();
        file       = H5VRFY(H5Fcreate(stub, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        write_data(file, 0);
        for (int it = 1; it <= 600; it++) {
            H5VRFY(H5Fflush(file, H5F_SCOPE_GLOBAL));
            if (it == 1 && t_rank == 0 && O.marker) {
                FILE *m = fopen(O.marker, "w");
                if (!m)
                    VRFY(0, "fopen marker failed");
                fclose(m);
                printf("t_multinode: writing; waiting to be stopped\n");
                fflush(stdout);
            }
            write_data(file, it);
            usleep(100000);
        }
        H5Fclose(file), H5Pclose(fapl);
        if (t_rank == 0)
            fprintf(stderr, "t_multinode: crash phase: nothing stopped the job\n");
    }
    else if (strcmp(O.phase, "topo"))
        usage_exit("unknown phase");
out:;
    if (t_rank == 0)
        printf("t_multinode: phase %s\n", O.phase);
    free(g_host);
    free(g_ioc);
    return t_finish();
}
