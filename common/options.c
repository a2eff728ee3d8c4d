/*
 * options.c -- the settings table: every option's config-string key,
 * environment variables, default, syntax and help, and the runtime
 * variables that are not options.  h5sf-options prints it and
 * docs/configuration.md is generated from it.  Besides the data, the two
 * lookups by row that read the environment (h5sf_var, h5sf_option_env)
 * and the getenv under them and under settings.c's overrides: every H5SF_*
 * variable is read here, so none escapes the generated list.
 *
 * Must stay in the row order of settings.c's setters[] (H5SF_NOPTIONS rows);
 * parses nothing, calls nothing of common/ (the bottom of its layers, so
 * that sysio.c may read H5SF_FAULT through it).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "settings_impl.h"

/* A limit of bounds.h as text, so the docs show the number the code checks. */
#define NUM_(x) #x
#define NUM(x)  NUM_(x)

const h5sf_option_t h5sf_options[] = {
    {"stripe_size", "H5SF_STRIPE_SIZE", "H5FD_SUBFILING_STRIPE_SIZE", "32MiB",
     "bytes, optional unit B, K/KiB, M/MiB, G/GiB, T/TiB (powers of two)",
     "Bytes per stripe: logical stripe k goes to subfile k mod stripe_count.  Ignored when an existing "
     "file is opened (its stored layout wins)."},
    {"stripe_count", "H5SF_STRIPE_COUNT", NULL, "0", "integer 0.." NUM(H5SF_MAX_STRIPE_COUNT),
     "Number of subfiles; 0 means the default for a new file: per I/O concentrator, as many subfiles as "
     "the ranks it serves, at most 4 (docs/configuration.md, \"The default subfile count\").  Ignored when "
     "an existing file is opened."},
    {"ioc", "H5SF_IOC", "H5FD_SUBFILING_IOC_PER_NODE", "per_node",
     "per_node | per_node:N | every:N | total:N | ranks:R1;R2;...",
     "Which ranks are I/O concentrators (IOCs), picked and ordered as by HDF5's built-in subfiling driver so "
     "that subfile k, served by IOC k mod (IOC count), is on the same node with either driver.  Ranks are "
     "taken node by node (nodes in the order of their lowest rank, ranks ascending within a node): the first "
     "N of each node (default 1); every N-th of that sequence from the first; N of it at a stride of "
     "(ranks - 1) / (N - 1), rounded down; or the listed ranks, in that order.  Never more IOCs than "
     "subfiles: per_node:N then takes subfiles / nodes (at least 1) per node.  Fallbacks: "
     "H5FD_SUBFILING_IOC_SELECTION_CRITERIA (\"<criteria>:<value>\": 0 = one per node, 1:N = every:N, "
     "3:N = total:N; 2 (from a file) is not supported) and H5FD_SUBFILING_IOC_PER_NODE=N (per_node:N, "
     "used only when the selection criteria do not pick another mode, as in the built-in driver)."},
    {"threads", "H5SF_THREADS", "H5FD_IOC_THREAD_POOL_SIZE", NUM(H5SF_DEFAULT_THREADS),
     "integer 1.." NUM(H5SF_MAX_THREADS), "Worker threads of each I/O concentrator."},
    {"channel", "H5SF_CHANNEL", NULL, "auto", "auto | ioc | direct",
     "Path of subfile I/O: through the I/O concentrators (needs MPI_THREAD_MULTIPLE), or every rank "
     "writes its own pieces directly.  auto: direct when the file's communicator is on one node (and the "
     "file has at most 256 subfiles), where the IOC channel would move every byte the same way; otherwise "
     "ioc when every rank has MPI_THREAD_MULTIPLE, else direct.  A plain HDF5 file (no config file) "
     "takes direct."},
    {"fsync", "H5SF_FSYNC", NULL, "0", "0 | 1 | true | false | yes | no | on | off",
     "fsync() the subfiles at every flush."},
    {"timeout", "H5SF_TIMEOUT", NULL, NUM(H5SF_DEFAULT_TIMEOUT), "seconds 1.." NUM(H5SF_MAX_TIMEOUT),
     "How long a client waits for an I/O concentrator before failing the call.  Also the longest close "
     "and MPI_Finalize wait for an IOC worker thread that is stuck in a file system call: it is then left "
     "behind (its memory leaked, one line on stderr) and they return."},
    {"subfile_dir", "H5SF_SUBFILE_DIR", "H5FD_SUBFILING_SUBFILE_PREFIX", "(the stub's directory)", "directory path",
     "Directory of the subfiles, e.g. node-local or faster storage.  A relative path is taken against the "
     "working directory of the process that creates the file (rank 0's), and the config file records it "
     "absolute, so any process reads the file from any directory."},
    {"config_dir", "H5SF_CONFIG_DIR", "H5FD_SUBFILING_CONFIG_FILE_PREFIX", "(the stub's directory)",
     "directory path (must exist)",
     "Directory of the <file>.subfile_<inode>.config file; must be given again when the file is "
     "reopened.  Recorded in the superblock's driver info."},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

const h5sf_option_t h5sf_runtime_vars[] = {
    [H5SF_VAR_STATS] =
        {
            "-",
            "H5SF_STATS",
            NULL,
            "0",
            "0 | 1 | transfers | stages",
            "1: print per-file I/O statistics on rank 0 when the file is closed.  Rank 0's value applies to every "
            "rank (the statistics are collected collectively).  transfers: the same, and every rank with this value "
            "prints one line per raw-data read or write call (H5FD_h5sf_get_last_transfer's report).  stages: the "
            "same as 1, and every rank with this value keeps the IOC channel's stage account: time, count and bytes "
            "of each stage of its requests, as client and as IOC (H5FD_h5sf_get_account; h5sf-bench --account).",
        },
    [H5SF_VAR_LOG] = {"-", "H5SF_LOG", NULL, "(unset)", "debug | json",
                      "Trace the layout decision (channel, IOC ranks, subfile ownership) on rank 0 at every open; json "
                      "prints one JSON object per open."},
    [H5SF_VAR_IOC_MEMORY] =
        {"-", "H5SF_IOC_MEMORY", NULL, "256MiB", "bytes with optional unit, at least 16MiB, at most the node's memory",
         "Most memory an I/O concentrator rank holds for requests: half for 8 MiB transfer buffers of its "
         "workers, half for received request messages and what their pieces cost (64 bytes a piece; clients "
         "cut longer piece lists into requests of at most a quarter of the least value of all ranks, and of at most "
         "2^20 "
         "pieces).  "
         "Beyond it the IOC stops taking requests and clients wait (back-pressure).  The IOC rank's requests to "
         "itself count but never wait: inside a COBEGIN bracket they may pass it by what that rank posted (their "
         "piece lists; the payload stays the caller's until a worker copies it through a transfer buffer).  Read "
         "when the first file on a "
         "communicator is opened; a change applies "
         "from the next open when no file of that communicator is open."},
    [H5SF_VAR_IOC_SHM] =
        {"-", "H5SF_IOC_SHM", NULL, "16MiB", "0, or bytes with optional unit, at least 1MiB",
         "Shared memory per rank for requests to an I/O concentrator on the rank's own node: a write's "
         "pieces are copied into it and the IOC writes them from there, a read's land there and are copied "
         "out, so the payload never travels as MPI messages.  Requests are cut to half of it, so one is "
         "filled while the IOC writes the other.  Costs up to this much times the ranks of a node in /dev/shm, "
         "mapped when the first file on a communicator is opened (the smallest value of the node's ranks "
         "applies) and reserved by each rank when it first sends a payload through it; if /dev/shm cannot "
         "hold it, or with 0, requests travel as MPI messages.  A change applies "
         "from the next open when no file of that communicator is open."},
    [H5SF_VAR_IOC_MAX_FDS] =
        {"-", "H5SF_IOC_MAX_FDS", NULL, "256", "integer 1..1048576",
         "Most subfiles an I/O concentrator keeps open at once; beyond it the least recently used idle one "
         "is closed and reopened when a request needs it.  Also the most a rank keeps open for its own "
         "reads and writes of subfiles on its node (all files together)."},
    [H5SF_VAR_IOC_MERGE_WAIT] =
        {"-", "H5SF_IOC_MERGE_WAIT", NULL, "5000 (bounded by 2 per piece)", "microseconds 0..10000000",
         "How long an IOC worker holding a request with gaps between its pieces (a strided selection) waits "
         "for other ranks' requests that fill the gaps, to write or read all of them as contiguous runs.  It "
         "stops waiting as soon as the gaps are filled.  By default the wait is also at most 2 us per piece; "
         "an explicit value drops that bound.  A default-length wait nobody joined is not repeated on that "
         "subfile for 100 ms, and a file opened by one rank alone never waits.  0 turns waiting off "
         "(requests already queued are still merged)."},
    [H5SF_VAR_SAMENODE_READS] =
        {"-", "H5SF_SAMENODE_READS", "H5SF_IOC_LOCAL_READS", "1", "0 | 1",
         "1: with the IOC channel, a rank reads subfiles whose IOC runs on its own node directly (one copy "
         "instead of two).  0: every read goes through the IOC."},
    [H5SF_VAR_SAMENODE_WRITES] =
        {"-", "H5SF_SAMENODE_WRITES", "H5SF_IOC_LOCAL_WRITES", "1", "0 | 1 | dense",
         "1: with the IOC channel, a rank writes to subfiles whose IOC runs on its own node directly (one "
         "copy instead of two, no round trip), strided selections included.  dense: the same, except sparse "
         "requests (16 or more pieces of at most 256 KiB on average with gaps between them: strided "
         "selections), which go through the IOC so that it merges them with other ranks' into contiguous "
         "runs.  0: every write goes through the IOC."},
    [H5SF_VAR_IOC_AFFINITY] =
        {"-", "H5SF_IOC_AFFINITY", NULL, "node", "node | inherit",
         "CPUs the threads of an I/O concentrator (progress thread, workers) may run on.  node: every CPU "
         "the process may use on its node, so they do not wait behind their rank's main thread when the "
         "launcher binds ranks to cores.  inherit: the rank's own binding (for sites that keep the other "
         "cores for something else)."},
    [H5SF_VAR_POOL_THREADS] =
        {"-", "H5SF_POOL_THREADS", NULL, "15", "integer 0..15",
         "Threads that run one call's subfile transfers a rank does itself (direct channel, and the IOC "
         "channel's same-node reads and writes) beside the calling thread, so that at most this + 1 subfiles "
         "are read or written at once.  0: one subfile after another on the calling thread.  Calls of under "
         "64 KiB per subfile and sparse writes run one after another whatever the value, except inside a "
         "caller's COBEGIN/COEND bracket, where every call's transfers go to the threads.  The threads are "
         "shared by the process and started on demand."},
    [H5SF_VAR_FAULT] = {"-", "H5SF_FAULT", NULL, "(unset)", "test-specific",
                        "Test-only fault injection used by the h5sf test suite.  Never set it in production."},
    [H5SF_VAR_ALLOW_UNTESTED_HDF5] =
        {"-", "H5SF_ALLOW_UNTESTED_HDF5", NULL, "0", "0 | 1",
         "1: load the plugin into an HDF5 outside the tested range (1.14.5 .. 2.2.x) or other than the major.minor "
         "it was built with, instead of refusing with an HDF5 error.  At your own risk: h5sf uses HDF5's private "
         "API context (docs/architecture.md, Private HDF5 calls)."},
    [H5SF_VAR_TEST_NO_PRIVATE_HDF5] =
        {"-", "H5SF_TEST_NO_PRIVATE_HDF5", NULL, "(unset)", "1",
         "Test-only: behave as if HDF5 did not export its private API context functions (the fallback path).  "
         "Never set it in production."},
    [H5SF_VAR_TEST_TAG_UB] =
        {"-", "H5SF_TEST_TAG_UB", NULL, "(unset)", "integer",
         "Test-only: pretend MPI_TAG_UB is this small, so the test suite can show that IOC replies are "
         "never confused when tags repeat.  Never set it in production."},
    [H5SF_VAR_TEST_MAX_PIECES] =
        {"-", "H5SF_TEST_MAX_PIECES", NULL, "(unset)", "integer 1..1048575",
         "Test-only: plan and run a transfer in rounds of this many pieces instead of the built-in limit "
         "(2^20), so that small transfers take many rounds; other values are ignored.  Never set it in production."},
    [H5SF_VAR_TEST_BELL_WAIT_S] =
        {"-", "H5SF_TEST_BELL_WAIT_S", NULL, "(unset)", "seconds",
         "Test-only: an idle I/O concentrator whose clients are all on its node sleeps this long at most on its "
         "doorbell instead of 50 ms (doubling to 1.6 s while nothing comes), so that the test suite shows no request "
         "relies on that wake-up.  Never set "
         "it in production."},
    [H5SF_VAR_TEST_SITES_TRACE] =
        {"-", "H5SF_TEST_SITES_TRACE", NULL, "(unset)", "any value",
         "Test-only: when the test suite's sweep fails an allocation, system call or MPI call on purpose, print "
         "where (a stack) on stderr.  Never set it in production."},
    [H5SF_VAR_REDIRECT_MPIO] =
        {"-", "H5SF_REDIRECT_MPIO", NULL, "(unset)", "0 | 1 | subfiling",
         "Used by the LD_PRELOAD shim: redirect H5Pset_fapl_mpio() of an unmodified program to h5sf (1) or, "
         "for comparisons, to HDF5's built-in subfiling driver (subfiling). A subfiled file opened with the "
         "default driver (one rank reading back alone) is opened by the same driver on MPI_COMM_SELF."},
    [H5SF_VAR_PRELOAD_THREAD_MULTIPLE] =
        {"-", "H5SF_PRELOAD_THREAD_MULTIPLE", NULL, "(unset)", "0 | 1",
         "Used by the LD_PRELOAD shim: 1 turns the program's plain MPI_Init into "
         "MPI_Init_thread(MPI_THREAD_MULTIPLE), so programs that never ask for threads can use I/O "
         "concentrators."},
    [H5SF_VAR_HDF5_DRIVER] = {"-", "HDF5_DRIVER", NULL, "(unset)", "h5sf",
                              "HDF5's own variable (listed for completeness): HDF5_DRIVER=h5sf selects this driver for "
                              "default file access property lists, loaded as a plugin."},
    [H5SF_VAR_HDF5_DRIVER_CONFIG] =
        {"-", "HDF5_DRIVER_CONFIG", NULL, "(unset)", "key=value,key=value",
         "HDF5's own variable (listed for completeness): the driver config string, parsed like "
         "H5Pset_driver_by_name's string (see the options above)."},
    [H5SF_NVARS] = {NULL, NULL, NULL, NULL, NULL, NULL},
};

_Static_assert(sizeof h5sf_options / sizeof h5sf_options[0] == H5SF_NOPTIONS + 1,
               "h5sf_options[] must have H5SF_NOPTIONS rows and a terminator");
_Static_assert(sizeof h5sf_runtime_vars / sizeof h5sf_runtime_vars[0] == H5SF_NVARS + 1,
               "h5sf_runtime_vars[] must have H5SF_NVARS rows and a terminator");

/* ---- the environment, by row ------------------------------------------- */

/* A variable's old name (its row's fallback) is read only when the new one
 * is not set at all, so the new name wins when both are. */
const char *h5sf_var(h5sf_var_t v)
{
    const char *name = h5sf_var_name(v);
    return *name ? getenv(name) : NULL;
}

const char *h5sf_var_name(h5sf_var_t v)
{
    if ((unsigned)v >= H5SF_NVARS || !h5sf_runtime_vars[v].env)
        return "";
    const h5sf_option_t *o = &h5sf_runtime_vars[v];
    return !getenv(o->env) && o->fallback && getenv(o->fallback) ? o->fallback : o->env;
}

const char *h5sf_env_value(const char *name)
{
    const char *v = name ? getenv(name) : NULL;
    return v && *v ? v : NULL;
}

const char *h5sf_option_env(const char *key)
{
    for (const h5sf_option_t *o = h5sf_options; key && o->key; o++)
        if (strcmp(o->key, key) == 0) {
            const char *v = h5sf_env_value(o->env);
            return v ? v : h5sf_env_value(o->fallback);
        }
    return NULL;
}
