/*
 * localread.c -- reads that bypass an IOC on the reader's own node.
 *
 * Through an IOC a read costs two copies: the IOC's preadv into its buffer,
 * then MPI into the client's memory.  When the IOC that owns a subfile runs
 * on the reader's node, the subfile is in the same file system and page
 * cache, so the reader can preadv it itself: one copy, no IOC queue.
 * Writes still go through the IOC (that is where ordering, merging and the
 * fewer-writers-per-file benefit live), and a write is acknowledged only
 * after its pwritev returned, so a later read -- by its writer, or by anyone
 * after a barrier -- sees it either way.  Subfiles owned by IOCs on other
 * nodes, and subfiles this rank cannot open, are read through the IOC.
 *
 * H5SF_IOC_LOCAL_READS=0 sends every read through the IOC.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum { LR_NO = 0, LR_UNTRIED, LR_OPEN };

int h5sf_local_reads_setting(bool *on, h5sf_errbuf_t *e)
{
    const char *v = getenv("H5SF_IOC_LOCAL_READS");
    *on           = true;
    if (!v || !*v || !strcmp(v, "1"))
        return 0;
    if (!strcmp(v, "0")) {
        *on = false;
        return 0;
    }
    return h5sf_fail(e, EINVAL, "H5SF_IOC_LOCAL_READS=\"%.200s\": must be 0 or 1", v);
}

/* Collective: mark the subfiles whose owner shares this rank's node. */
int h5sf_local_reads_init(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    bool      on;
    int       N = f->layout.stripe_count, failed = 0;
    MPI_Comm  node  = MPI_COMM_NULL;
    MPI_Group gnode = MPI_GROUP_NULL, gall = MPI_GROUP_NULL;

    if (f->channel != H5FD_H5SF_CHANNEL_IOC)
        return 0;
    if (h5sf_local_reads_setting(&on, e) < 0) /* checked at open already */
        on = false;
    if (!(f->rd = calloc((size_t)N, sizeof *f->rd)) || !(f->rd_eoa = calloc((size_t)N, sizeof *f->rd_eoa)) ||
        !(f->rd_state = calloc((size_t)N, 1)))
        failed = h5sf_fail(e, ENOMEM, "out of memory") < 0;
    /* Every rank takes part in the split, whatever it decides. */
    if (MPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        failed = h5sf_fail(e, 0, "MPI_Comm_split_type failed finding this rank's node") < 0;
    if (!failed && on) {
        MPI_Comm_group(node, &gnode);
        MPI_Comm_group(f->comm, &gall);
        for (int s = 0; s < N; s++) {
            int owner = h5sf_owner(f, s), there = MPI_UNDEFINED;
            MPI_Group_translate_ranks(gall, 1, &owner, gnode, &there);
            f->rd_state[s] = there != MPI_UNDEFINED ? LR_UNTRIED : LR_NO;
        }
        MPI_Group_free(&gnode);
        MPI_Group_free(&gall);
    }
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    return h5sf_agree(f->comm, failed, e);
}

/* The channel to read subfile s directly, opened on first use with its EOA
 * at least `end`; NULL: read through the IOC. */
H5FD_t *h5sf_local_reader(h5sf_file_t *f, int s, haddr_t end)
{
    if (!f->rd_state || f->rd_state[s] == LR_NO)
        return NULL;
    if (f->rd_state[s] == LR_UNTRIED) {
        char          path[2 * H5SF_LAYOUT_PATH_MAX];
        h5sf_errbuf_t eb;
        hid_t         fapl = H5Pcreate(H5P_FILE_ACCESS);
        f->rd_state[s]     = LR_NO;
        if (fapl >= 0 && H5Pset_fapl_sec2(fapl) >= 0 && h5sf_subfile_path(&f->layout, s, path, sizeof path, &eb) == 0) {
            /* Not readable here (another mount, permissions): the IOC can. */
            H5E_BEGIN_TRY { f->rd[s] = H5FDopen(path, H5F_ACC_RDONLY, fapl, H5SF_CHAN_MAXADDR); }
            H5E_END_TRY
            if (f->rd[s])
                f->rd_state[s] = LR_OPEN;
        }
        if (fapl >= 0)
            H5Pclose(fapl);
        if (f->rd_state[s] != LR_OPEN)
            return NULL;
    }
    if (end > f->rd_eoa[s]) {
        if (H5FDset_eoa(f->rd[s], H5FD_MEM_DRAW, end) < 0)
            return NULL;
        f->rd_eoa[s] = end;
    }
    return f->rd[s];
}

void h5sf_local_reads_close(h5sf_file_t *f)
{
    for (int s = 0; f->rd && s < f->layout.stripe_count; s++)
        if (f->rd[s])
            H5FDclose(f->rd[s]);
    free(f->rd);
    free(f->rd_eoa);
    free(f->rd_state);
    f->rd       = NULL;
    f->rd_eoa   = NULL;
    f->rd_state = NULL;
}
