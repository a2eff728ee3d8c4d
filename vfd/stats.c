/*
 * stats.c -- "what happened": H5SF_STATS summary at close and the H5SF_LOG
 * trace of the layout decision at open.  Both print on rank 0 only.
 * Also the public getters of the statistics, the layout and the last
 * transfer's report (filled by io.c and dispatch.c).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

bool h5sf_stats_wanted(void)
{
    const char *v = h5sf_var(H5SF_VAR_STATS);
    return v && *v && strcmp(v, "0") != 0;
}

bool h5sf_stats_transfers_wanted(void)
{
    const char *v = h5sf_var(H5SF_VAR_STATS);
    return v && strcmp(v, "transfers") == 0;
}

/* ---- counters (include/h5sf.h, H5FD_H5SF_STATS_COUNTERS) -------------- */

/* How two values of a counter combine, by its `reduce` column: the IOC's
 * value into the VFD's own, and one rank's into another's. */
#define COMBINE_sum(to, v)  (to) += (v)
#define COMBINE_secs(to, v) (to) += (v)
#define COMBINE_none(to, v) (to) += (v)
#define COMBINE_max(to, v)  (to) = (v) > (to) ? (v) : (to)

/* A counter's `source`: vfd counts nothing beyond f->stats. */
typedef struct counter_source {
    uint64_t            vfd;
    h5sf_ioc_counters_t ioc;
} counter_source_t;

/* This rank's statistics of f: its VFD's counts, each combined with its
 * IOC's (the `source` column). */
static void stats_now(const h5sf_file_t *f, h5sf_stats_t *st)
{
    counter_source_t src = {0};
    *st                  = f->stats;
    if (f->ctx)
        h5sf_ioc_get_counters(f->ctx, &src.ioc);
#define FROM_SOURCE(field, reduce, source, head, text) COMBINE_##reduce(st->field, src.source);
    H5FD_H5SF_STATS_COUNTERS(FROM_SOURCE)
#undef FROM_SOURCE
}

/* Copy a public struct that opens with a uint64_t size (include/h5sf.h):
 * at most the caller's *out size bytes of the `full` bytes at in (0: the
 * first sized layout's `first`); the size filled goes back into *out. */
static void sized_copy(void *out, const void *in, size_t full, size_t first)
{
    uint64_t size;
    memcpy(&size, out, sizeof size);
    size_t n = size ? (size_t)size : first;
    if (n > full)
        n = full;
    if (n > sizeof size)
        memcpy((char *)out + sizeof size, (const char *)in + sizeof size, n - sizeof size);
    size = n;
    memcpy(out, &size, sizeof size);
}

/* H5FD_H5SF_CTL_GET_STATS: at most the caller's out->size bytes. */
void h5sf_stats_get(const h5sf_file_t *f, h5sf_stats_t *out)
{
    h5sf_stats_t st;
    stats_now(f, &st);
    sized_copy(out, &st, sizeof st, H5FD_H5SF_STATS_SIZE_1);
}

/* H5FD_H5SF_CTL_GET_TRANSFER: at most the caller's out->size bytes. */
void h5sf_transfer_get(const h5sf_file_t *f, H5FD_h5sf_transfer_t *out)
{
    sized_copy(out, &f->xfer, sizeof f->xfer, H5FD_H5SF_TRANSFER_SIZE_1);
}
_Static_assert(sizeof(H5FD_h5sf_transfer_t) >= H5FD_H5SF_TRANSFER_SIZE_1, "fields are only ever added");
_Static_assert(sizeof(h5sf_stats_t) >= H5FD_H5SF_STATS_SIZE_1, "counters are only ever added");

/* What the close summary reduces over the ranks: the counters and the
 * channel totals (requests, then bytes, per H5FD_h5sf_via_t). */
typedef struct summary {
    h5sf_stats_t st;
    uint64_t     via[2 * H5FD_H5SF_VIA_KINDS];
} summary_t;

/* MPI_Op over whole summary_t elements (an MPI_Type_contiguous of
 * uint64_t), so each counter combines by its own `reduce`. */
static void summary_combine(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) {
        const summary_t *a = (const summary_t *)in + i;
        summary_t       *b = (summary_t *)inout + i;
#define COMBINE(field, reduce, source, head, text) COMBINE_##reduce(b->st.field, a->st.field);
        H5FD_H5SF_STATS_COUNTERS(COMBINE)
#undef COMBINE
        for (int k = 0; k < 2 * H5FD_H5SF_VIA_KINDS; k++)
            b->via[k] += a->via[k];
    }
}

/* One MPI_Reduce of *mine to rank 0's *all (a copy without a communicator). */
static void summary_reduce(const summary_t *mine, summary_t *all, MPI_Comm comm)
{
    MPI_Datatype type;
    MPI_Op       op;
    *all = *mine;
    if (comm == MPI_COMM_NULL)
        return;
    MPI_Type_contiguous((int)(sizeof *mine / sizeof(uint64_t)), MPI_UINT64_T, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(summary_combine, 1, &op);
    MPI_Reduce(mine, all, 1, type, op, 0, comm);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
}
_Static_assert(sizeof(summary_t) % sizeof(uint64_t) == 0, "summary_t is an array of uint64_t");

/* A summary line's start: a new line, labelled by `head` ("": blank);
 * none for 0 (the counter continues the line before). */
static void print_head(const char *head)
{
    if (head)
        fprintf(stderr, "\n  %-17s", head);
}

#define PRINT_sum(v, head, text)  print_head(head), fprintf(stderr, text, (unsigned long long)(v))
#define PRINT_max(v, head, text)  PRINT_sum(v, head, text)
#define PRINT_secs(v, head, text) print_head(head), fprintf(stderr, text, (double)(v) / 1e9)
#define PRINT_none(v, head, text) (void)0

static void summary_print(const h5sf_file_t *f, const summary_t *all)
{
    fprintf(stderr, "h5sf stats for %s (%d ranks, %d IOCs, %d subfiles, %s channel)", f->name, f->size, f->nioc,
            f->layout.stripe_count, f->channel == H5FD_H5SF_CHANNEL_IOC ? "IOC" : "direct");
#define PRINT(field, reduce, source, head, text) PRINT_##reduce(all->st.field, head, text);
    H5FD_H5SF_STATS_COUNTERS(PRINT)
#undef PRINT
    const uint64_t *r = all->via, *b = all->via + H5FD_H5SF_VIA_KINDS;
    fprintf(stderr,
            "\n  channels         requests / bytes: to another rank's IOC %llu / %llu, to the own IOC %llu / %llu,\n"
            "                   same-node shortcut %llu / %llu, direct %llu / %llu\n",
            (unsigned long long)r[H5FD_H5SF_VIA_IOC_REMOTE], (unsigned long long)b[H5FD_H5SF_VIA_IOC_REMOTE],
            (unsigned long long)r[H5FD_H5SF_VIA_IOC_SELF], (unsigned long long)b[H5FD_H5SF_VIA_IOC_SELF],
            (unsigned long long)r[H5FD_H5SF_VIA_SAMENODE], (unsigned long long)b[H5FD_H5SF_VIA_SAMENODE],
            (unsigned long long)r[H5FD_H5SF_VIA_DIRECT], (unsigned long long)b[H5FD_H5SF_VIA_DIRECT]);
}

/* Collective (called from close on every rank).  f->stats_on is the same on
 * every rank (rank 0's, agreed at open): the reduction is all or nothing. */
void h5sf_stats_report(h5sf_file_t *f)
{
    summary_t mine, all;
    if (!f->stats_on)
        return;
    memset(&mine, 0, sizeof mine);
    stats_now(f, &mine.st);
    for (int k = 0; k < H5FD_H5SF_VIA_KINDS; k++) {
        mine.via[k]                       = f->via_requests[k];
        mine.via[H5FD_H5SF_VIA_KINDS + k] = f->via_bytes[k];
    }
    summary_reduce(&mine, &all, f->comm);
    if (f->rank == 0)
        summary_print(f, &all);
}

/* ---- H5SF_LOG (h5sf_log_open and its helpers) ------------------------- */

/* File names go into JSON verbatim otherwise: escape quotes, backslashes and
 * control characters so the line always parses. */
static void log_json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

static const char *log_thread_level(int provided)
{
    switch (provided) {
        case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
        case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
        case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
        case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
        default: return "unknown";
    }
}

/* Why these ranks are IOCs, in words (mirrors common/iocmap.c).  "Node by
 * node": nodes in the order of their lowest rank, ranks ascending within a
 * node, the order of the built-in driver and of the IOC list. */
static void log_ioc_reason(const h5sf_file_t *f, char *buf, size_t n)
{
    int p = f->cfg.ioc_param > 0 ? f->cfg.ioc_param : 1;
    switch (f->cfg.ioc_mode) {
        case H5FD_H5SF_IOC_PER_NODE:
            snprintf(buf, n, "ioc=per_node:%d: the first %d rank(s) of each of the %d node(s)", p, p, f->nnodes);
            break;
        case H5FD_H5SF_IOC_EVERY_NTH:
            snprintf(buf, n, "ioc=every:%d: every %d-th of the %d rank(s) taken node by node, from the first", p, p,
                     f->size);
            break;
        case H5FD_H5SF_IOC_TOTAL: {
            int t = p < f->size ? p : f->size;
            snprintf(buf, n, "ioc=total:%d: %d of the %d rank(s) taken node by node, every %d-th from the first%s", p,
                     f->nioc, f->size, t > 1 ? (f->size - 1) / (t - 1) : 1,
                     p > f->size ? " (capped at the number of ranks)" : "");
            break;
        }
        case H5FD_H5SF_IOC_LIST:
            snprintf(buf, n, "ioc=ranks:%.900s: explicit list, ordered node by node", f->cfg.ioc_list);
            break;
        default: snprintf(buf, n, "unknown IOC mode %d", (int)f->cfg.ioc_mode);
    }
}

/* What an open's log line says, in words (log_facts). */
typedef struct log_facts {
    const char *chan, *why, *access, *source, *sdir, *mname;
    int         provided, threads;
    char        reason[1024], cfgpath[H5SF_LAYOUT_PATH_MAX + 64];
} log_facts_t;

static void log_facts(const h5sf_file_t *f, int provided, log_facts_t *l)
{
    static const char *modes[] = {"per_node", "every", "total", "ranks"};
    l->provided                = provided;
    l->chan                    = f->channel == H5FD_H5SF_CHANNEL_IOC ? "ioc" : "direct";
    h5sf_channel_pick(f, provided, &l->why);
    l->access  = (f->flags & H5F_ACC_CREAT) ? "create" : (f->flags & H5F_ACC_RDWR) ? "rdwr" : "rdonly";
    l->source  = (f->flags & H5F_ACC_CREAT) ? "settings (new file)"
                 : f->layout.plain          ? "file itself (a plain HDF5 file: no config file)"
                                            : "config file of the existing file";
    l->sdir    = f->layout.subfile_dir[0] ? f->layout.subfile_dir : f->layout.stub_dir;
    l->mname   = (unsigned)f->cfg.ioc_mode < 4 ? modes[f->cfg.ioc_mode] : "unknown";
    l->threads = f->cfg.threads > 0 ? f->cfg.threads : H5SF_DEFAULT_THREADS;
    log_ioc_reason(f, l->reason, sizeof l->reason);
    if (h5sf_config_path(&f->layout, l->cfgpath, sizeof l->cfgpath, NULL) < 0)
        l->cfgpath[0] = '\0';
}

/* H5SF_LOG=json: one JSON object (one line). */
static void log_json(FILE *fp, const h5sf_file_t *f, const log_facts_t *l)
{
    fputs("{\"h5sf\":\"open\",\"file\":", fp);
    log_json_str(fp, f->name);
    fprintf(fp,
            ",\"access\":\"%s\",\"ranks\":%d,\"nodes\":%d,\"channel\":\"%s\",\"channel_reason\":\"%s\","
            "\"thread_level\":%d,\"thread_level_name\":\"%s\",\"threads\":%d,\"ioc_mode\":\"%s\","
            "\"ioc_param\":%d,\"ioc_reason\":",
            l->access, f->size, f->nnodes, l->chan, l->why, l->provided, log_thread_level(l->provided), l->threads,
            l->mname, f->cfg.ioc_param);
    log_json_str(fp, l->reason);
    fprintf(fp,
            ",\"ioc_count\":%d,\"stripe_size\":%lld,\"stripe_count\":%d,\"layout_source\":\"%s\","
            "\"inode\":%llu,\"subfile_dir\":",
            f->nioc, (long long)f->layout.stripe_size, f->layout.stripe_count, l->source,
            (unsigned long long)f->layout.inode);
    log_json_str(fp, l->sdir);
    fputs(",\"config_file\":", fp);
    log_json_str(fp, l->cfgpath);
    fputs(",\"iocs\":[", fp);
    for (int i = 0; i < f->nioc; i++) {
        fprintf(fp, "%s{\"rank\":%d,\"subfiles\":[", i ? "," : "", f->iocs[i]);
        for (int s = i, k = 0; s < f->layout.stripe_count; s += f->nioc, k++)
            fprintf(fp, "%s%d", k ? "," : "", s);
        fputs("]}", fp);
    }
    fputs("]}\n", fp);
}

/* H5SF_LOG=debug: human-readable lines. */
static void log_text(FILE *fp, const h5sf_file_t *f, const log_facts_t *l)
{
    fprintf(fp, "h5sf: open %s (%s): %d ranks on %d node(s)\n", f->name, l->access, f->size, f->nnodes);
    fprintf(fp, "h5sf:   channel %s (%s; thread level %s = %d)%s\n", l->chan, l->why, log_thread_level(l->provided),
            l->provided,
            f->channel == H5FD_H5SF_CHANNEL_IOC ? ""
                                                : "; every rank writes its own pieces, the IOC ranks below only create "
                                                  "and size their subfiles");
    if (f->channel == H5FD_H5SF_CHANNEL_IOC)
        fprintf(fp, "h5sf:   IOC worker threads: %d each\n", l->threads);
    fprintf(fp, "h5sf:   layout from the %s: stripe_size %lld, %d subfile(s), stub inode %llu\n", l->source,
            (long long)f->layout.stripe_size, f->layout.stripe_count, (unsigned long long)f->layout.inode);
    fprintf(fp, "h5sf:   subfiles in %s; config file %s\n", l->sdir, l->cfgpath);
    fprintf(fp, "h5sf:   %d IOC(s), chosen by %s\n", f->nioc, l->reason);
    for (int i = 0; i < f->nioc; i++) {
        fprintf(fp, "h5sf:   IOC rank %d owns subfile(s)", f->iocs[i]);
        if (i >= f->layout.stripe_count)
            fputs(" none (more IOCs than subfiles)", fp);
        for (int s = i; s < f->layout.stripe_count; s += f->nioc)
            fprintf(fp, " %d", s);
        fputc('\n', fp);
    }
}

/* H5SF_LOG=debug: human-readable; H5SF_LOG=json: one JSON object (one line)
 * per open.  Rank 0 only; composed in memory and written with one call so
 * the line is not interleaved with other output. */
void h5sf_log_open(h5sf_file_t *f, int provided)
{
    const char *mode = h5sf_var(H5SF_VAR_LOG);
    char       *text = NULL;
    size_t      len  = 0;
    FILE       *fp;
    log_facts_t l;
    if (!mode || !*mode || !strcmp(mode, "0") || f->rank != 0 || !(fp = open_memstream(&text, &len)))
        return;
    log_facts(f, provided, &l);
    strcmp(mode, "json") == 0 ? log_json(fp, f, &l) : log_text(fp, f, &l);
    if (fclose(fp) == 0 && text)
        fwrite(text, 1, len, stderr);
    free(text); /* open_memstream's buffer: libc's, not h5sf_malloc's */
}

/* The public getters find the file through its VFD handle: h5sf's
 * get_handle returns &f->stub_fd, and the registry confirms the pointer is
 * one of ours before it is used.  The getters are local, so no
 * H5Fget_access_plist: with an MPI driver it duplicates the file's
 * communicator, a collective one rank alone would hang in. */
static herr_t file_of(hid_t file_id, h5sf_file_t **out)
{
    void  *handle    = NULL;
    herr_t ret_value = 0;
    if (H5Fget_vfd_handle(file_id, H5P_FILE_ACCESS_DEFAULT, &handle) < 0 || !handle)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "not an open HDF5 file");
    *out = h5sf_registry_find((char *)handle - offsetof(h5sf_file_t, stub_fd));
    if (!*out)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "file is not open with the h5sf driver");
done:
    return ret_value;
}

H5SF_API herr_t H5FD_h5sf_get_stats_sized(hid_t file_id, h5sf_stats_t *stats, size_t size)
{
    h5sf_file_t *f;
    if (!stats || size < sizeof stats->size || file_of(file_id, &f) < 0)
        return -1;
    stats->size = size;
    return H5FDctl(&f->pub, H5FD_H5SF_CTL_GET_STATS, 0, NULL, (void **)&stats);
}

H5SF_API herr_t H5FD_h5sf_get_last_transfer_sized(hid_t file_id, H5FD_h5sf_transfer_t *transfer, size_t size)
{
    h5sf_file_t *f;
    herr_t       ret_value = 0;
    if (!transfer || size < sizeof transfer->size)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "H5FD_h5sf_get_last_transfer: transfer is NULL");
    if (file_of(file_id, &f) < 0)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "H5FD_h5sf_get_last_transfer: no h5sf file");
    transfer->size = size;
    ret_value      = H5FDctl(&f->pub, H5FD_H5SF_CTL_GET_TRANSFER, 0, NULL, (void **)&transfer);
done:
    return ret_value;
}

H5SF_API herr_t H5FD_h5sf_get_layout(hid_t file_id, H5FD_h5sf_layout_t *layout)
{
    h5sf_file_t *f;
    if (!layout || file_of(file_id, &f) < 0)
        return -1;
    return H5FDctl(&f->pub, H5FD_H5SF_CTL_GET_LAYOUT, 0, NULL, (void **)&layout);
}
