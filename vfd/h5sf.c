/*
 * h5sf.c -- the h5sf VFD class: close, EOA/EOF, truncate, flush, delete,
 * ctl and the superblock driver-info block (open: open.c; read and write:
 * io.c).
 *
 * The logical file is striped over subfiles (common/stripe.h); each subfile
 * is reached through a channel (channel.c).  Everything collective in here
 * ends with h5sf_agree(), so a failure on one rank fails the call on every
 * rank with the same message instead of leaving the others in a barrier.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "threadpool.h"
#include "iocmap.h"
#include "../common/drvlen.h"
#include "../common/orphans.h"

/* The class's callbacks in this file (read and write: io.c). */
static herr_t  h5sf_term(void);
static hsize_t h5sf_sb_size(H5FD_t *file);
static herr_t  h5sf_sb_encode(H5FD_t *file, char *name, unsigned char *buf);
static herr_t  h5sf_sb_decode(H5FD_t *file, const char *name, const unsigned char *buf);
static void   *h5sf_fapl_get(H5FD_t *file);
static void   *h5sf_fapl_copy(const void *fa);
static herr_t  h5sf_fapl_free(void *fa);
static herr_t  h5sf_close(H5FD_t *file);
static int     h5sf_cmp(const H5FD_t *a, const H5FD_t *b);
static herr_t  h5sf_query(const H5FD_t *file, unsigned long *flags);
static haddr_t h5sf_get_eoa(const H5FD_t *file, H5FD_mem_t type);
static herr_t  h5sf_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr);
static haddr_t h5sf_get_eof(const H5FD_t *file, H5FD_mem_t type);
static herr_t  h5sf_get_handle(H5FD_t *file, hid_t fapl, void **handle);
static herr_t  h5sf_flush(H5FD_t *file, hid_t dxpl, hbool_t closing);
static herr_t  h5sf_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing);
static herr_t  h5sf_delete(const char *name, hid_t fapl_id);
static herr_t  h5sf_ctl(H5FD_t *file, uint64_t op, uint64_t flags, const void *input, void **output);

const H5FD_class_t h5sf_class = {
    .version         = H5FD_CLASS_VERSION,
    .value           = H5FD_H5SF_VALUE,
    .name            = H5FD_H5SF_NAME,
    .maxaddr         = H5SF_MAXADDR,
    .fc_degree       = H5F_CLOSE_WEAK, /* as the built-in subfiling driver */
    .terminate       = h5sf_term,
    .sb_size         = h5sf_sb_size,
    .sb_encode       = h5sf_sb_encode,
    .sb_decode       = h5sf_sb_decode,
    .fapl_size       = sizeof(H5FD_h5sf_config_t),
    .fapl_get        = h5sf_fapl_get,
    .fapl_copy       = h5sf_fapl_copy,
    .fapl_free       = h5sf_fapl_free,
    .open            = h5sf_open,
    .close           = h5sf_close,
    .cmp             = h5sf_cmp,
    .query           = h5sf_query,
    .get_eoa         = h5sf_get_eoa,
    .set_eoa         = h5sf_set_eoa,
    .get_eof         = h5sf_get_eof,
    .get_handle      = h5sf_get_handle,
    .read            = h5sf_read,
    .write           = h5sf_write,
    .read_vector     = h5sf_read_vector,
    .write_vector    = h5sf_write_vector,
    .read_selection  = h5sf_read_selection,
    .write_selection = h5sf_write_selection,
    .flush           = h5sf_flush,
    .truncate        = h5sf_truncate,
    .del             = h5sf_delete,
    .ctl             = h5sf_ctl,
    .fl_map          = H5FD_FLMAP_DICHOTOMY,
};

/* ---- close ------------------------------------------------------------ */

static herr_t h5sf_close(H5FD_t *file)
{
    h5sf_file_t  *f         = (h5sf_file_t *)file;
    h5sf_errbuf_t eb        = {0};
    herr_t        ret_value = 0;
    /* HDF5 also closes us while unwinding a failed open (bad
     * driver info, truncated file); the public calls below (H5FDclose of the
     * channels) would clear its error stack and hide the reason.  Keep it;
     * this close's own error goes on top. */
    hid_t         saved = H5Eget_current_stack();
    h5sf_errbuf_t coeb  = {0};
    int           cofailed;
    H5E_major_t   maj = H5E_VFL;
    H5E_minor_t   min = H5E_CANTCLOSEFILE;

    h5sf_registry_remove(f);
    if (f->mpi_dead || h5sf_mpi_finalizing())
        f->mpi_dead = true;
    /* A bracket still open: what it posted completes first (its buffers
     * are the caller's); a failure fails the close, after the collective
     * part below.  One left open across MPI_Finalize was waited for there,
     * and is reported here unless a COEND did. */
    bool unreported = f->co_finalized && f->co;
    cofailed        = h5sf_bracket_close(f, &coeb) < 0;
    if (!f->mpi_dead)
        h5sf_stats_report(f);
    if (h5sf_channels_close(f, &eb) < 0)
        ret_value = -1;
    else if (unreported)
        ret_value = h5sf_fail(&eb, 0,
                              "close of %s: a COBEGIN bracket was left open across MPI_Finalize, which waited for "
                              "its transfers: %s%.300s",
                              f->name, cofailed ? "one failed: " : "all of them completed", cofailed ? coeb.msg : "");
    else if (cofailed) {
        ret_value = h5sf_fail(&eb, 0, "close of %s inside a COBEGIN bracket: a posted transfer failed: %.300s", f->name,
                              coeb.msg);
        maj       = H5E_IO;
        min       = H5E_WRITEERROR;
    }
    h5sf_file_free(f);
    /* Pushed after the stack is back: H5Eset_current_stack, an API call,
     * clears the current one first. */
    if (saved >= 0)
        H5Eset_current_stack(saved);
    if (ret_value < 0)
        H5SF_PUSH(maj, min, "%s", eb.msg);
    return ret_value;
}

static int h5sf_cmp(const H5FD_t *a, const H5FD_t *b)
{
    const h5sf_file_t *x = (const h5sf_file_t *)a, *y = (const h5sf_file_t *)b;
    if (x->layout.inode != y->layout.inode)
        return x->layout.inode < y->layout.inode ? -1 : 1;
    return strcmp(x->layout.stub_dir, y->layout.stub_dir);
}

/* A file opened without a communicator (f->serial: one rank, MPI_COMM_SELF)
 * is a serial file to HDF5, as it would be under sec2: without HAS_MPI,
 * HDF5 writes variable-length data, reads virtual datasets, caches chunks,
 * allocates late, and refuses collective transfers.  A file opened on a
 * named communicator, of any size, keeps parallel HDF5's rules, as under
 * MPI-IO; so does the class (file NULL), which HDF5 asks about a fapl. */
static herr_t h5sf_query(const H5FD_t *file, unsigned long *flags)
{
    const h5sf_file_t *f = (const h5sf_file_t *)file;
    *flags               = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_AGGREGATE_SMALLDATA;
    if (!f || !f->serial)
        *flags |= H5FD_FEAT_HAS_MPI;
    return 0;
}

static haddr_t h5sf_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const h5sf_file_t *)file)->eoa;
}

static herr_t h5sf_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((h5sf_file_t *)file)->eoa = addr;
    return 0;
}

/* A serial file's EOF follows its writes, as sec2's does: HDF5's page
 * buffer, which it runs on serial files only, takes a page at or past the
 * EOF for one never written and so lost pages it had evicted there.  On a
 * named communicator the EOF is open's and truncate's, as MPI-IO's (HDF5
 * does not rely on it there; each rank's writes differ). */
static haddr_t h5sf_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
    const h5sf_file_t *f = (const h5sf_file_t *)file;
    (void)type;
    return f->serial && f->wend > f->eof ? f->wend : f->eof;
}

static herr_t h5sf_get_handle(H5FD_t *file, hid_t fapl, void **handle)
{
    (void)fapl;
    *handle = &((h5sf_file_t *)file)->stub_fd;
    return 0;
}

/* ---- truncate, flush -------------------------------------------------- */

/* Collective (HDF5 calls it on every rank with the same EOA): subfiles get
 * exactly the sizes the EOA implies, and the stub becomes a sparse file of
 * the logical size so tools that open it with sec2 see a consistent EOF. */
static herr_t h5sf_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    h5sf_file_t  *f         = (h5sf_file_t *)file;
    h5sf_errbuf_t eb        = {0};
    herr_t        ret_value = 0;
    int           failed    = 0;
    (void)dxpl;
    (void)closing;

    if (f->co_finalized)
        H5SF_GOTO(-1, H5E_IO, H5E_TRUNCATED,
                  "truncate of %s: MPI was finalized while a COBEGIN bracket was open on it; nothing but H5FDclose "
                  "can follow",
                  f->name);
    /* Inside a bracket, what was posted completes first (sizes, EOF); a
     * failure of it fails this call too. */
    if (h5sf_bracket_drain(f, &eb) < 0)
        failed = 1;
    /* Writes never pass the EOA, so subfiles can only be off their exact
     * sizes after an EOA change, when one was found too long at open, or
     * after writes past the EOF that an EOA shrunk back to it no longer
     * covers (every rank's writes count: the ranks agree on the skip). */
    if (f->mpi_dead || !(f->flags & H5F_ACC_RDWR))
        goto posted;
    if (f->eoa == f->eof && !f->eof_long) {
        uint64_t mine = f->wend, all = 0;
        if (h5sf_coll_allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_MAX, f->comm) != MPI_SUCCESS)
            H5SF_GOTO(-1, H5E_IO, H5E_TRUNCATED, "truncate of %s: MPI_Allreduce failed", f->name);
        if (all <= f->eof)
            goto posted;
    }
    /* Every rank's writes are complete, and the posted ones worked on
     * every rank -- or no rank truncates: subfiles half cut, with an EOF
     * nobody recorded, would be worse than none cut. */
    if (h5sf_agree(f->comm, failed, &eb) < 0)
        H5SF_GOTO(-1, H5E_IO, H5E_WRITEERROR, "truncate of %s inside a COBEGIN bracket: %s", f->name, eb.msg);
    if (h5sf_channels_truncate(f, f->eoa, &eb) < 0)
        failed = 1;
    if (!failed && f->rank == 0 && h5sf_sysio_truncate(f->stub_fd, f->eoa) < 0)
        failed = h5sf_fail(&eb, errno, "cannot truncate stub %s to %llu bytes: %s", f->name, (unsigned long long)f->eoa,
                           strerror(errno)) < 0;
    if (h5sf_agree(f->comm, failed, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_IO, H5E_TRUNCATED, &eb);
    f->eof      = f->eoa;
    f->eof_long = false;
    f->wend     = 0;
posted: /* no truncation: only this rank's posted transfers can fail it */
    if (failed)
        H5SF_GOTO(-1, H5E_IO, H5E_WRITEERROR, "truncate of %s inside a COBEGIN bracket: %s", f->name, eb.msg);
done:
    return ret_value;
}

static herr_t h5sf_flush(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    h5sf_file_t  *f         = (h5sf_file_t *)file;
    h5sf_errbuf_t eb        = {0};
    herr_t        ret_value = 0;
    int           failed;
    (void)dxpl;
    (void)closing;

    if (f->co_finalized)
        H5SF_GOTO(-1, H5E_IO, H5E_WRITEERROR,
                  "flush of %s: MPI was finalized while a COBEGIN bracket was open on it; nothing but H5FDclose "
                  "can follow",
                  f->name);
    /* Inside a bracket, what was posted completes first (and is synced
     * below); a failure of it fails the flush. */
    failed = h5sf_bracket_drain(f, &eb) < 0;
    if (f->mpi_dead || !f->cfg.fsync || !(f->flags & H5F_ACC_RDWR)) {
        if (failed)
            H5SF_GOTO(-1, H5E_IO, H5E_WRITEERROR, "flush of %s inside a COBEGIN bracket: %s", f->name, eb.msg);
        goto done;
    }
    /* Every rank's writes are done and worked, or nobody syncs: the
     * outcome is the same on every rank. */
    if (h5sf_agree(f->comm, failed, &eb) < 0)
        H5SF_GOTO(-1, H5E_IO, H5E_WRITEERROR, "flush of %s inside a COBEGIN bracket: %s", f->name, eb.msg);
    failed = h5sf_channels_sync(f, &eb) < 0;
    if (!failed && f->stub_fd >= 0 && f->rank == 0 && h5sf_sysio_sync(f->stub_fd, -1) < 0)
        failed = h5sf_fail(&eb, errno, "fsync of stub %s failed: %s", f->name, strerror(errno)) < 0;
    if (h5sf_agree(f->comm, failed, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_IO, H5E_WRITEERROR, &eb);
done:
    return ret_value;
}

/* ---- delete ----------------------------------------------------------- */

/* Remove stub, config and every subfile -- or, for a plain HDF5 file
 * (which opens through h5sf as one), the file; or, for a symbolic link,
 * the link alone, as sec2 does.  Collective when MPI is up: every
 * rank resolves its settings and all agree (a bad value anywhere fails the
 * delete everywhere, with nothing removed); then rank 0 removes, the others
 * wait, everyone gets the outcome. */
static herr_t h5sf_delete(const char *name, hid_t fapl_id)
{
    H5FD_h5sf_config_t cfg;
    h5sf_layout_t     *l         = NULL;
    h5sf_errbuf_t      eb        = {0};
    herr_t             ret_value = 0;
    int                provided, rank = 0, size, failed = 0, stub_fd = -1;
    const bool         solo = h5sf_solo_open(fapl_id); /* no MPI: comm stays MPI_COMM_NULL */
    MPI_Comm           comm = MPI_COMM_NULL;
    MPI_Info           info = MPI_INFO_NULL;
    char               path[2 * H5SF_LAYOUT_PATH_MAX];

    /* Without usable MPI there is nobody to agree with. */
    if (!solo && h5sf_mpi_ensure(&provided, &eb) < 0) {
        if (!h5sf_mpi_usable())
            H5SF_GOTO_EB(-1, H5E_VFL, H5E_CANTDELETEFILE, &eb);
        failed = 1;
    }
    if (failed || h5sf_fapl_resolve(fapl_id, &cfg, &eb) < 0) {
        failed = 1;
        h5sf_fallback_cfg(fapl_id, &cfg);
    }
    /* Collective on the fapl's communicator only: IOR deletes from one
     * rank with MPI_COMM_SELF, split groups each delete their own file. */
    {
        h5sf_errbuf_t ceb = {0};
        if (!solo && h5sf_fapl_comm(fapl_id, &cfg, &comm, &info, NULL, &ceb) < 0)
            H5SF_GOTO_EB(-1, H5E_VFL, H5E_CANTDELETEFILE, &ceb);
    }
    if (h5sf_agree(comm, failed, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_VFL, H5E_CANTDELETEFILE, &eb);
    h5sf_coll_rank_size(comm, &rank, &size);
    struct stat lst;
    if (rank == 0 && h5sf_sysio_fstatat(AT_FDCWD, name, &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode)) {
        /* As sec2: the link goes, never what it points to (whose set
         * stays whole: its stub, config file and subfiles). */
        if (h5sf_sysio_unlink(name) < 0)
            failed = h5sf_fail(&eb, errno, "cannot remove %s: %s", name, strerror(errno)) < 0;
    }
    else if (rank == 0) {
        struct stat st;
        int         kind = -1;
        if (!(l = h5sf_calloc(1, sizeof *l)))
            failed = h5sf_fail(&eb, ENOMEM, "out of memory") < 0;
        else if (h5sf_layout_set_stub(l, name, &eb) < 0)
            failed = 1;
        /* name is no symlink (above): the stub itself. */
        else if ((stub_fd = h5sf_sysio_open(name, O_RDONLY, -1)) < 0 || h5sf_sysio_fstat(stub_fd, &st) < 0)
            failed = h5sf_fail(&eb, errno, "cannot open %s: %s", name, h5sf_sysio_strerror(errno)) < 0;
        else {
            l->inode = (uint64_t)st.st_ino;
            snprintf(l->config_dir, sizeof l->config_dir, "%s", cfg.config_dir);
            /* A plain file (no config file; open takes it as one) is its
             * one file; a subfiled stub without its config is refused. */
            if ((kind = h5sf_layout_load(l, stub_fd, name, &eb)) < 0)
                failed = 1;
            for (int s = 0; !failed && kind == 0 && s < l->stripe_count; s++)
                if (h5sf_subfile_path(l, s, path, sizeof path, &eb) < 0)
                    failed = 1;
                else if (h5sf_sysio_unlink(path) < 0 && errno != ENOENT)
                    failed = h5sf_fail(&eb, errno, "cannot remove subfile %s: %s", path, strerror(errno)) < 0;
            if (!failed && kind == 0 &&
                (h5sf_config_path(l, path, sizeof path, &eb) < 0 || h5sf_sysio_unlink(path) < 0))
                failed = h5sf_fail(&eb, errno, "cannot remove config file %s: %s", path, strerror(errno)) < 0;
            if (!failed && h5sf_sysio_unlink(name) < 0)
                failed = h5sf_fail(&eb, errno, "cannot remove stub %s: %s", name, strerror(errno)) < 0;
        }
    }
    if (h5sf_agree(comm, failed, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_VFL, H5E_CANTDELETEFILE, &eb);
done:
    if (stub_fd >= 0)
        h5sf_sysio_close(stub_fd);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    h5sf_free(l);
    return ret_value;
}

/* ---- ctl -------------------------------------------------------------- */

/* COBEGIN/COEND from the caller (include/h5sf.h): between them each
 * independent transfer call posts its subfile transfers and returns; the
 * outermost COEND waits for all of them (bracket.c).  Nested
 * brackets count: inner COENDs return at once. */
static herr_t h5sf_ctl(H5FD_t *file, uint64_t op, uint64_t flags, const void *input, void **output)
{
    h5sf_file_t  *f         = (h5sf_file_t *)file;
    h5sf_errbuf_t eb        = {0};
    herr_t        ret_value = 0;
    (void)input;

    switch (op) {
        case H5FD_CTL_GET_MPI_COMMUNICATOR_OPCODE: **((MPI_Comm **)output) = f->comm; break;
        case H5FD_CTL_GET_MPI_INFO_OPCODE: **((MPI_Info **)output) = f->info; break;
        case H5FD_CTL_GET_MPI_RANK_OPCODE: **((int **)output) = f->rank; break;
        case H5FD_CTL_GET_MPI_SIZE_OPCODE: **((int **)output) = f->size; break;
        case H5FD_CTL_GET_MPI_FILE_SYNC_OPCODE: **((hbool_t **)output) = false; break;
        case H5FD_H5SF_CTL_GET_STATS: h5sf_stats_get(f, *(h5sf_stats_t **)output); break;
        case H5FD_H5SF_CTL_GET_LAYOUT: {
            H5FD_h5sf_layout_t *l = *(H5FD_h5sf_layout_t **)output;
            l->stripe_size        = f->layout.stripe_size;
            l->stripe_count       = f->layout.stripe_count;
            l->ioc_count          = f->nioc;
            l->channel            = f->channel;
            l->inode              = f->layout.inode;
            break;
        }
        case H5FD_H5SF_CTL_GET_TRANSFER: h5sf_transfer_get(f, *(H5FD_h5sf_transfer_t **)output); break;
        case H5FD_H5SF_CTL_COBEGIN:
            if (h5sf_bracket_begin(f, &eb) < 0)
                H5SF_GOTO_EB(-1, H5E_VFL, H5E_FCNTL, &eb);
            break;
        case H5FD_H5SF_CTL_COEND:
            switch (h5sf_bracket_end(f, &eb)) {
                case 0: break;
                case H5SF_BRACKET_NONE: H5SF_GOTO(-1, H5E_VFL, H5E_FCNTL, "COEND on %s without a COBEGIN", f->name);
                case H5SF_BRACKET_FAILED:
                    H5SF_GOTO(-1, H5E_IO, H5E_WRITEERROR, "COEND on %s: a transfer posted since COBEGIN failed: %s",
                              f->name, eb.msg);
                default:
                    H5SF_GOTO(-1, H5E_VFL, H5E_FCNTL,
                              "COEND on %s after MPI_Finalize: the bracket was left open across MPI_Finalize, which "
                              "waited for its transfers: %s%s",
                              f->name, eb.msg[0] ? "one failed: " : "all of them completed", eb.msg);
            }
            break;
        default:
            if (flags & H5FD_CTL_FAIL_IF_UNKNOWN_FLAG)
                H5SF_GOTO(-1, H5E_VFL, H5E_FCNTL, "unknown ctl opcode %llu", (unsigned long long)op);
    }
done:
    return ret_value;
}

/* ---- superblock driver info (byte-compatible with the built-in) ------- */

/* A plain file stays plain: no driver info block is added to it. */
static hsize_t h5sf_sb_size(H5FD_t *file)
{
    const h5sf_layout_t *l = &((h5sf_file_t *)file)->layout;
    return l->plain ? 0 : h5sf_drvinfo_size(l);
}

static herr_t h5sf_sb_encode(H5FD_t *file, char *name, unsigned char *buf)
{
    herr_t ret_value = 0;
    if (h5sf_drvinfo_encode(&((h5sf_file_t *)file)->layout, name, buf) < 0)
        H5SF_GOTO(-1, H5E_VFL, H5E_CANTENCODE, "cannot encode the driver info block");
done:
    return ret_value;
}

/* The config file gave us the layout at open; the superblock must agree. */
static herr_t h5sf_sb_decode(H5FD_t *file, const char *name, const unsigned char *buf)
{
    h5sf_file_t  *f = (h5sf_file_t *)file;
    h5sf_layout_t l;
    h5sf_errbuf_t eb        = {0};
    herr_t        ret_value = 0;

    memset(&l, 0, sizeof l);
    /* Driver info in a file without a config file: a subfiled file whose
     * config is elsewhere (or lost), or another driver's file. */
    if (f->layout.plain) {
        char cfg[2 * H5SF_LAYOUT_PATH_MAX];
        f->layout.plain = 0;
        if (h5sf_config_path(&f->layout, cfg, sizeof cfg, &eb) < 0)
            snprintf(cfg, sizeof cfg, "(none)");
        f->layout.plain = 1;
        if (!strncmp(name, "Subfilin", 8))
            H5SF_GOTO(-1, H5E_VFL, H5E_CANTOPENFILE,
                      "%s is a subfiled file, but its config file %s does not exist (set config_dir / "
                      "H5SF_CONFIG_DIR to where it is)",
                      f->name, cfg);
        H5SF_GOTO(-1, H5E_VFL, H5E_CANTOPENFILE,
                  "%s carries driver info of another driver (\"%.8s\"); open it with that driver", f->name, name);
    }
    /* HDF5 does not pass the block's length; rank 0 read it at open. */
    if (f->layout.drvinfo_len == 0)
        H5SF_GOTO(-1, H5E_VFL, H5E_CANTDECODE,
                  "driver info of %s: no superblock with driver info could be read from its subfiles at open", f->name);
    if (h5sf_drvinfo_decode(name, buf, f->layout.drvinfo_len, &l, &eb) < 0)
        H5SF_GOTO(-1, H5E_VFL, H5E_CANTDECODE, "driver info of %s: %s", f->name, eb.msg);
    if (l.stripe_size != f->layout.stripe_size || l.stripe_count != f->layout.stripe_count)
        H5SF_GOTO(-1, H5E_VFL, H5E_BADVALUE,
                  "config file of %s (stripe_size %lld, %d subfiles) disagrees with the superblock's "
                  "driver info (stripe_size %lld, %d subfiles)",
                  f->name, (long long)f->layout.stripe_size, f->layout.stripe_count, (long long)l.stripe_size,
                  l.stripe_count);
done:
    return ret_value;
}

/* ---- fapl callbacks ---------------------------------------------------- */

/* Driver info owns duplicates of its comm and info, like the MPI-IO
 * driver's fapl: the caller may free its own right after
 * H5Pset_fapl_h5sf, and every copy HDF5 makes is freed on its own. */
static void *config_dup(const H5FD_h5sf_config_t *src, MPI_Comm comm, MPI_Info info)
{
    H5FD_h5sf_config_t *c = h5sf_malloc(sizeof *c);
    if (!c)
        return NULL;
    /* MPI is never started here: a serial program's fapl names h5sf
     * without MPI (solo.c). */
    *c      = *src;
    c->comm = MPI_COMM_NULL;
    c->info = MPI_INFO_NULL;
    if (comm != MPI_COMM_NULL && h5sf_mpi_usable() && h5sf_mpisite_comm_dup(comm, &c->comm) != MPI_SUCCESS)
        c->comm = MPI_COMM_NULL;
    if (info != MPI_INFO_NULL && h5sf_mpi_usable() && h5sf_mpisite_info_dup(info, &c->info) != MPI_SUCCESS)
        c->info = MPI_INFO_NULL;
    return c;
}

/* A serial file's fapl names no communicator either, so a reopen through
 * H5Fget_access_plist is serial again. */
static void *h5sf_fapl_get(H5FD_t *file)
{
    h5sf_file_t *f = (h5sf_file_t *)file;
    return config_dup(&f->cfg, f->serial ? MPI_COMM_NULL : f->comm, f->serial ? MPI_INFO_NULL : f->info);
}

static void *h5sf_fapl_copy(const void *fa)
{
    const H5FD_h5sf_config_t *c = fa;
    return config_dup(c, c->comm, c->info);
}

static herr_t h5sf_fapl_free(void *fa)
{
    H5FD_h5sf_config_t *c = fa;
    if (c && h5sf_mpi_usable()) {
        if (c->comm != MPI_COMM_NULL)
            MPI_Comm_free(&c->comm);
        if (c->info != MPI_INFO_NULL)
            MPI_Info_free(&c->info);
    }
    h5sf_free(c);
    return 0;
}

/* The driver's id as h5sf_register() (plugin.c) found it; forgotten when
 * HDF5 terminates the driver (a later id may be another driver's). */
hid_t h5sf_id = H5I_INVALID_HID;

static herr_t h5sf_term(void)
{
    /* Our code may be unloaded next (plugin): no thread may stay in it. */
    h5sf_ioc_end_parked();
    h5sf_pool_shutdown();
    h5sf_topology_forget();
    h5sf_err_term();
    h5sf_id = H5I_INVALID_HID;
    return 0;
}
