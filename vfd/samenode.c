/*
 * samenode.c -- the IOC channel's same-node shortcut: I/O that skips an IOC on
 * the caller's own node.  This comment is the one description of which
 * requests take it (docs/architecture.md, channel.c and internal.h point
 * here).
 *
 * Through an IOC every byte is copied twice: MPI moves it between client and
 * IOC, the IOC's pwritev/preadv moves it between its buffer and the file.
 * When the IOC that owns a subfile runs on the caller's node, the subfile is
 * in the same file system and page cache, and the caller can do the second
 * copy itself, straight from or into its own memory: one copy, no queue.
 *
 *   reads   of such subfiles always go direct (H5SF_SAMENODE_READS=0: not);
 *   writes  too, sparse ones included (H5SF_SAMENODE_WRITES=0: every write
 *           goes to the IOC; =dense: sparse writes -- many small pieces
 *           with gaps, a strided selection, h5sf_sparse() -- still meet at
 *           the IOC, which merges many ranks' pieces into contiguous runs;
 *           dense writes go direct all the same: a round trip to the IOC
 *           costs more than their pwritev; measured: docs/performance-history.md,
 *           Figures behind constants, dense same-node writes).  On one
 *           node that merge gains the file system nothing (its page cache
 *           sees the same bytes either way) and costs a second copy and a
 *           queue every rank waits in (measured: docs/performance-history.md,
 *           Figures behind constants, same-node strided writes).
 *
 * What the IOC gives the file system is unchanged: one node's writers per
 * subfile (parallel file systems lock per client node, so ranks of the IOC's
 * node are one writer to them), and no client on another node touches it.
 * Ordering is unchanged too: every write call, same-node or through the IOC,
 * returns only after its pwritev returned, so a later read or write -- by
 * the same rank, or by another after a barrier -- is ordered after it.
 * Overlapping writes of different ranks with no synchronization between
 * them have no defined order in MPI-IO either.  Subfiles this rank cannot
 * open (another mount, permissions) silently use the IOC.
 *
 * The same-node descriptors (plain ones, through common/sysio.c) of all
 * files this process has open share one budget, H5SF_IOC_MAX_FDS (the
 * IOC's own cap): beyond it the least recently used one is closed and
 * reopened when needed (the use order is common/lru.c's, as the IOC's).
 * Without it a rank would hold (open files x same-node subfiles)
 * descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "../common/lru.h"

enum { DESC_NONE = 0, DESC_UNTRIED, DESC_OPEN };

/* A subfile's place in the use order of all files' descriptors. */
struct h5sf_samenode_ent {
    h5sf_lru_node_t lru; /* in use_order while DESC_OPEN */
    h5sf_file_t    *f;
    int             s;
    uint64_t        used; /* use_clock at its last use */
};

static int        descs_open; /* same-node descriptors open, all files */
static h5sf_lru_t use_order;  /* those descriptors, least recently used first */
static uint64_t   use_clock;  /* use counter */
static uint64_t   use_pin;    /* descriptors used since: in the running request */

/* Collective: mark the subfiles whose owner shares this rank's node (the
 * node map topology.c found while choosing the IOCs). */
int h5sf_samenode_init(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    bool rd;
    int  wr, N = f->layout.stripe_count, failed = 0;

    if (f->channel != H5FD_H5SF_CHANNEL_IOC)
        return 0;
    if (h5sf_samenode_settings(&rd, &wr, e) < 0) { /* checked at open already */
        rd = false;
        wr = H5SF_SAMENODE_NONE;
    }
    f->samenode_reads  = rd;
    f->samenode_writes = (f->flags & H5F_ACC_RDWR) ? wr : H5SF_SAMENODE_NONE;
    f->samenode_cap    = h5sf_ioc_fd_cap();
    if (!(f->samenode_fd = h5sf_malloc((size_t)N * sizeof *f->samenode_fd)) ||
        !(f->samenode_ents = h5sf_calloc((size_t)N, sizeof *f->samenode_ents)) ||
        !(f->samenode_state = h5sf_calloc((size_t)N, 1)))
        failed = h5sf_fail(e, ENOMEM, "out of memory") < 0;
    for (int s = 0; f->samenode_fd && s < N; s++)
        f->samenode_fd[s] = -1;
    for (int s = 0; f->samenode_ents && s < N; s++) {
        f->samenode_ents[s].f = f;
        f->samenode_ents[s].s = s;
    }
    if (!failed && (f->samenode_reads || f->samenode_writes))
        for (int s = 0; s < N; s++)
            f->samenode_state[s] = f->leads[h5sf_owner(f, s)] == f->leads[f->rank] ? DESC_UNTRIED : DESC_NONE;
    return h5sf_agree(f->comm, failed, e);
}

static void close_desc(h5sf_file_t *f, int s)
{
    h5sf_sysio_close(f->samenode_fd[s]); /* read-only or already written: nothing to lose */
    h5sf_lru_remove(&f->samenode_ents[s].lru);
    f->samenode_fd[s]    = -1;
    f->samenode_state[s] = DESC_UNTRIED;
    descs_open--;
}

/* A descriptor the running request has not used: it may close. */
static bool desc_idle(const h5sf_lru_node_t *n, void *arg)
{
    (void)arg;
    return H5SF_LRU_ENTRY(n, h5sf_samenode_ent_t, lru)->used < use_pin;
}

/* Below the budget before one more opens: close the least recently used
 * same-node descriptor of any open file that the running request does not
 * use.  False if there is none. */
static bool desc_make_room(h5sf_file_t *f)
{
    while (descs_open >= f->samenode_cap) {
        h5sf_lru_node_t *n = h5sf_lru_oldest(&use_order, desc_idle, NULL);
        if (!n)
            return false;
        h5sf_samenode_ent_t *ent = H5SF_LRU_ENTRY(n, h5sf_samenode_ent_t, lru);
        close_desc(ent->f, ent->s);
    }
    return true;
}

void h5sf_samenode_begin(void) { use_pin = use_clock + 1; }

/* Open subfile s: read-write when this file may be written, never created
 * or truncated (its IOC did that at open). */
static bool open_desc(h5sf_file_t *f, int s)
{
    char          path[2 * H5SF_LAYOUT_PATH_MAX];
    h5sf_errbuf_t eb;
    f->samenode_state[s] = DESC_NONE;
    if (!desc_make_room(f)) { /* all in use by this request: the IOC this time */
        f->samenode_state[s] = DESC_UNTRIED;
        return false;
    }
    if (h5sf_subfile_path(&f->layout, s, path, sizeof path, &eb) == 0 &&
        (f->samenode_fd[s] = h5sf_sysio_open(path, (f->flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY, -1)) >= 0) {
        f->samenode_state[s] = DESC_OPEN;
        descs_open++;
    }
    return f->samenode_state[s] == DESC_OPEN;
}

int h5sf_samenode_fd(h5sf_file_t *f, int s, bool is_write, const sf_list_t *l, haddr_t end)
{
    if (!f->samenode_state || f->samenode_state[s] == DESC_NONE)
        return -1;
    if (is_write) {
        if (f->samenode_writes == H5SF_SAMENODE_NONE || l->n == 0)
            return -1;
        /* the list is sorted by offset: its extent is end - first offset */
        if (f->samenode_writes == H5SF_SAMENODE_DENSE && h5sf_sparse(l->n, end - l->v[0].off, l->bytes))
            return -1;
    }
    else if (!f->samenode_reads)
        return -1;
    if (f->samenode_state[s] == DESC_UNTRIED && !open_desc(f, s))
        return -1;
    f->samenode_ents[s].used = ++use_clock;
    h5sf_lru_touch(&use_order, &f->samenode_ents[s].lru);
    return f->samenode_fd[s];
}

void h5sf_samenode_close(h5sf_file_t *f)
{
    for (int s = 0; f->samenode_fd && s < f->layout.stripe_count; s++)
        if (f->samenode_fd[s] >= 0)
            close_desc(f, s);
    h5sf_free(f->samenode_fd);
    h5sf_free(f->samenode_ents);
    h5sf_free(f->samenode_state);
    f->samenode_fd    = NULL;
    f->samenode_ents  = NULL;
    f->samenode_state = NULL;
}
