/*
 * local.c -- IOC channel: I/O that skips an IOC on the caller's own node.
 *
 * Through an IOC every byte is copied twice: MPI moves it between client and
 * IOC, the IOC's pwritev/preadv moves it between its buffer and the file.
 * When the IOC that owns a subfile runs on the caller's node, the subfile is
 * in the same file system and page cache, and the caller can do the second
 * copy itself, straight from or into its own memory: one copy, no queue.
 *
 *   reads   of such subfiles always go direct (H5SF_IOC_LOCAL_READS=0: not);
 *   writes  go direct unless they are sparse (h5sf_ioc_sparse(): many small
 *           pieces with gaps, a strided selection).  Sparse writes still meet
 *           at the IOC, which turns many ranks' pieces into a few contiguous
 *           runs; a dense write is one run already, and a round trip to the
 *           IOC costs more than the pwritev (H5SF_IOC_LOCAL_WRITES=0: every
 *           write goes to the IOC).
 *
 * What the IOC gives the file system is unchanged: one node's writers per
 * subfile (parallel file systems lock per client node, so ranks of the IOC's
 * node are one writer to them), and no client on another node touches it.
 * Ordering is unchanged too: every write call, local or through the IOC,
 * returns only after its pwritev returned, so a later read or write -- by
 * the same rank, or by another after a barrier -- is ordered after it.
 * Overlapping writes of different ranks with no synchronization between
 * them have no defined order in MPI-IO either.  Subfiles this rank cannot
 * open (another mount, permissions) silently use the IOC.
 *
 * The node-local channels of all files this process has open share one
 * descriptor budget, H5SF_IOC_MAX_FDS (the IOC's own cap): beyond it the
 * least recently used one is closed and reopened when needed.  Without it a
 * rank would hold (open files x node-local subfiles) descriptors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum { LOC_NO = 0, LOC_UNTRIED, LOC_OPEN };

static int      loc_nopen; /* local channels open, all files */
static uint64_t loc_clock; /* use counter for the LRU choice */
static uint64_t loc_pin;   /* channels used since: in the running request */

/* Collective: mark the subfiles whose owner shares this rank's node (the
 * node map topology.c found while choosing the IOCs). */
int h5sf_local_init(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    bool rd, wr;
    int  N = f->layout.stripe_count, failed = 0;

    if (f->channel != H5FD_H5SF_CHANNEL_IOC)
        return 0;
    if (h5sf_local_settings(&rd, &wr, e) < 0) /* checked at open already */
        rd = wr = false;
    f->loc_reads  = rd;
    f->loc_writes = wr && (f->flags & H5F_ACC_RDWR);
    f->loc_cap = h5sf_ioc_fd_cap();
    if (!(f->loc = calloc((size_t)N, sizeof *f->loc)) || !(f->loc_eoa = calloc((size_t)N, sizeof *f->loc_eoa)) ||
        !(f->loc_used = calloc((size_t)N, sizeof *f->loc_used)) || !(f->loc_state = calloc((size_t)N, 1)))
        failed = h5sf_fail(e, ENOMEM, "out of memory") < 0;
    if (!failed && (f->loc_reads || f->loc_writes))
        for (int s = 0; s < N; s++)
            f->loc_state[s] = f->leads[h5sf_owner(f, s)] == f->leads[f->rank] ? LOC_UNTRIED : LOC_NO;
    return h5sf_agree(f->comm, failed, e);
}

static void close_local(h5sf_file_t *f, int s)
{
    H5FDclose(f->loc[s]); /* read-only or already written: nothing to lose */
    f->loc[s]       = NULL;
    f->loc_eoa[s]   = 0;
    f->loc_state[s] = LOC_UNTRIED;
    loc_nopen--;
}

/* Below the budget before one more opens: close the least recently used
 * local channel of any open file (f itself may not be registered yet) that
 * the running request does not use.  False if there is none. */
static bool make_room(h5sf_file_t *f)
{
    while (loc_nopen >= f->loc_cap) {
        h5sf_file_t *bf = NULL;
        int          bs = -1;
        uint64_t     best = UINT64_MAX;
        for (h5sf_file_t *p = h5sf_files_first(); ; p = p->next) {
            h5sf_file_t *q = p ? p : f; /* the registry, then f */
            for (int s = 0; q->loc_state && s < q->layout.stripe_count; s++)
                if (q->loc_state[s] == LOC_OPEN && q->loc_used[s] < loc_pin && q->loc_used[s] < best) {
                    best = q->loc_used[s];
                    bf   = q;
                    bs   = s;
                }
            if (!p)
                break;
        }
        if (!bf)
            return false;
        close_local(bf, bs);
    }
    return true;
}

void h5sf_local_begin(void) { loc_pin = loc_clock + 1; }

/* Open subfile s as a sec2 channel: read-write when this file may be
 * written, never created or truncated (its IOC did that at open). */
static bool open_local(h5sf_file_t *f, int s)
{
    char          path[2 * H5SF_LAYOUT_PATH_MAX];
    h5sf_errbuf_t eb;
    hid_t         fapl = H5Pcreate(H5P_FILE_ACCESS);
    f->loc_state[s]    = LOC_NO;
    if (!make_room(f)) { /* all in use by this request: the IOC this time */
        f->loc_state[s] = LOC_UNTRIED;
        if (fapl >= 0)
            H5Pclose(fapl);
        return false;
    }
    if (fapl >= 0 && H5Pset_fapl_sec2(fapl) >= 0 && h5sf_subfile_path(&f->layout, s, path, sizeof path, &eb) == 0) {
        unsigned acc = (f->flags & H5F_ACC_RDWR) ? H5F_ACC_RDWR : H5F_ACC_RDONLY;
        H5E_BEGIN_TRY { f->loc[s] = H5FDopen(path, acc, fapl, H5SF_CHAN_MAXADDR); }
        H5E_END_TRY
        if (f->loc[s]) {
            f->loc_state[s] = LOC_OPEN;
            loc_nopen++;
        }
    }
    if (fapl >= 0)
        H5Pclose(fapl);
    return f->loc_state[s] == LOC_OPEN;
}

H5FD_t *h5sf_local_channel(h5sf_file_t *f, int s, bool is_write, const sf_list_t *l, haddr_t end)
{
    if (!f->loc_state || f->loc_state[s] == LOC_NO)
        return NULL;
    if (is_write) {
        if (!f->loc_writes || l->n == 0)
            return NULL;
        uint64_t extent = end - l->v[0].off; /* the list is sorted by offset */
        if (h5sf_ioc_sparse(l->n, extent, l->bytes))
            return NULL;
    }
    else if (!f->loc_reads)
        return NULL;
    if (f->loc_state[s] == LOC_UNTRIED && !open_local(f, s))
        return NULL;
    if (end > f->loc_eoa[s]) { /* once: an EOA only bounds the addresses, and
                                * a sec2 channel is never truncated to it */
        if (H5FDset_eoa(f->loc[s], H5FD_MEM_DRAW, H5SF_CHAN_MAXADDR) < 0)
            return NULL;
        f->loc_eoa[s] = H5SF_CHAN_MAXADDR;
    }
    f->loc_used[s] = ++loc_clock;
    return f->loc[s];
}

void h5sf_local_close(h5sf_file_t *f)
{
    for (int s = 0; f->loc && s < f->layout.stripe_count; s++)
        if (f->loc[s])
            close_local(f, s);
    free(f->loc);
    free(f->loc_eoa);
    free(f->loc_used);
    free(f->loc_state);
    f->loc       = NULL;
    f->loc_eoa   = NULL;
    f->loc_used  = NULL;
    f->loc_state = NULL;
}
