/*
 * stats.c -- "what happened": H5SF_STATS summary at close and the H5SF_LOG
 * trace of the layout decision at open.  Both print on rank 0 only.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Collective (called from close on every rank). */
void h5sf_stats_report(h5sf_file_t *f)
{
    if (!env_flag("H5SF_STATS"))
        return;
    enum { NF = 8 };
    uint64_t mine[NF] = {f->stats.read_calls, f->stats.write_calls, f->stats.pieces_in, f->stats.pieces_out,
                         f->stats.messages,   f->stats.bytes_read,  f->stats.bytes_written, 0};
    uint64_t sum[NF], max_inflight = f->stats.cobegin_max_inflight, all_inflight = 0;
    h5sf_ioc_counters_t c = {0};
    if (f->ctx) {
        h5sf_ioc_get_counters(f->ctx, &c);
        if (c.max_inflight > max_inflight)
            max_inflight = c.max_inflight;
    }
    uint64_t served = c.requests_served, served_all = 0, qwait = c.queue_wait_ns, qwait_all = 0, io = c.io_ns,
             io_all = 0;
    MPI_Reduce(mine, sum, NF, MPI_UINT64_T, MPI_SUM, 0, f->comm);
    MPI_Reduce(&max_inflight, &all_inflight, 1, MPI_UINT64_T, MPI_MAX, 0, f->comm);
    MPI_Reduce(&served, &served_all, 1, MPI_UINT64_T, MPI_SUM, 0, f->comm);
    MPI_Reduce(&qwait, &qwait_all, 1, MPI_UINT64_T, MPI_SUM, 0, f->comm);
    MPI_Reduce(&io, &io_all, 1, MPI_UINT64_T, MPI_SUM, 0, f->comm);
    if (f->rank != 0)
        return;
    fprintf(stderr,
            "h5sf stats for %s (%d ranks, %d IOCs, %d subfiles, %s channel)\n"
            "  VFD calls        %llu reads, %llu writes\n"
            "  pieces           %llu in, %llu after striping and merging\n"
            "  requests         %llu subfile requests, %llu most in flight at once\n"
            "  bytes            %llu read, %llu written\n"
            "  IOC              %llu requests served, %.3f s queue wait, %.3f s in pwritev/preadv\n",
            f->name, f->size, f->nioc, f->layout.stripe_count,
            f->channel == H5FD_H5SF_CHANNEL_IOC ? "IOC" : "direct", (unsigned long long)sum[0],
            (unsigned long long)sum[1], (unsigned long long)sum[2], (unsigned long long)sum[3],
            (unsigned long long)sum[4], (unsigned long long)all_inflight, (unsigned long long)sum[5],
            (unsigned long long)sum[6], (unsigned long long)served_all, qwait_all / 1e9, io_all / 1e9);
}

/* H5SF_LOG=debug: human-readable; H5SF_LOG=json: one JSON object per open. */
void h5sf_log_open(h5sf_file_t *f, int provided)
{
    const char *mode = getenv("H5SF_LOG");
    if (!mode || !*mode || f->rank != 0)
        return;
    bool        json = strcmp(mode, "json") == 0;
    const char *chan = f->channel == H5FD_H5SF_CHANNEL_IOC ? "ioc" : "direct";
    const char *why  = f->cfg.channel != H5FD_H5SF_CHANNEL_AUTO ? "requested"
                       : provided == MPI_THREAD_MULTIPLE       ? "MPI_THREAD_MULTIPLE available"
                                                               : "MPI_THREAD_MULTIPLE not available";
    static const char *modes[] = {"per_node", "every", "total", "ranks"};
    if (json) {
        fprintf(stderr, "{\"h5sf\":\"open\",\"file\":\"%s\",\"ranks\":%d,\"nodes\":%d,\"channel\":\"%s\","
                        "\"channel_reason\":\"%s\",\"thread_level\":%d,\"ioc_mode\":\"%s\",\"stripe_size\":%lld,"
                        "\"stripe_count\":%d,\"inode\":%llu,\"iocs\":[",
                f->name, f->size, f->nnodes, chan, why, provided, modes[f->cfg.ioc_mode],
                (long long)f->layout.stripe_size, f->layout.stripe_count, (unsigned long long)f->layout.inode);
        for (int i = 0; i < f->nioc; i++) {
            fprintf(stderr, "%s{\"rank\":%d,\"subfiles\":[", i ? "," : "", f->iocs[i]);
            for (int s = i, k = 0; s < f->layout.stripe_count; s += f->nioc, k++)
                fprintf(stderr, "%s%d", k ? "," : "", s);
            fprintf(stderr, "]}");
        }
        fprintf(stderr, "]}\n");
        return;
    }
    fprintf(stderr, "h5sf: open %s: %d ranks on %d node(s); channel %s (%s; thread level %d)\n", f->name,
            f->size, f->nnodes, chan, why, provided);
    fprintf(stderr, "h5sf:   layout: stripe_size %lld, %d subfiles, stub inode %llu\n",
            (long long)f->layout.stripe_size, f->layout.stripe_count, (unsigned long long)f->layout.inode);
    fprintf(stderr, "h5sf:   IOC selection %s: %d IOC(s)\n", modes[f->cfg.ioc_mode], f->nioc);
    for (int i = 0; i < f->nioc; i++) {
        fprintf(stderr, "h5sf:   IOC rank %d owns subfiles", f->iocs[i]);
        for (int s = i; s < f->layout.stripe_count; s += f->nioc)
            fprintf(stderr, " %d", s);
        fprintf(stderr, "\n");
    }
}

/* The public getters find the file through its VFD handle: h5sf's
 * get_handle returns &f->stub_fd, and the registry confirms the pointer is
 * one of ours before it is used. */
static herr_t file_of(hid_t file_id, h5sf_file_t **out)
{
    void  *handle = NULL;
    hid_t  fapl   = H5Fget_access_plist(file_id);
    herr_t ret_value = 0;
    if (fapl < 0 || H5Fget_vfd_handle(file_id, fapl, &handle) < 0 || !handle)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "not an open HDF5 file");
    *out = h5sf_files_find((char *)handle - offsetof(h5sf_file_t, stub_fd));
    if (!*out)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "file is not open with the h5sf driver");
done:
    if (fapl >= 0)
        H5Pclose(fapl);
    return ret_value;
}

H5SF_API herr_t H5FD_h5sf_get_stats(hid_t file_id, h5sf_stats_t *stats)
{
    h5sf_file_t *f;
    if (!stats || file_of(file_id, &f) < 0)
        return -1;
    return H5FDctl(&f->pub, H5FD_H5SF_CTL_GET_STATS, 0, NULL, (void **)&stats);
}

H5SF_API herr_t H5FD_h5sf_get_layout(hid_t file_id, H5FD_h5sf_layout_t *layout)
{
    h5sf_file_t *f;
    if (!layout || file_of(file_id, &f) < 0)
        return -1;
    return H5FDctl(&f->pub, H5FD_H5SF_CTL_GET_LAYOUT, 0, NULL, (void **)&layout);
}
