/*
 * open.c -- h5sf_open, the class's open callback (h5sf.c holds the class),
 * in five steps: the file's handles, the settings every rank shares, the
 * stub and layout with the IOC ranks, the channel (h5sf_channel_pick,
 * channel.c) and stripe plan, the channels.  Also the undo of a failed
 * create.  Every step that can fail on one rank
 * ends in an agreement (h5sf_ioc_agree), so every rank fails together with
 * the same message.  Touches no file it did not open or create.
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

/* Free f and what it holds (not collective: after close or a failed open). */
void h5sf_file_free(h5sf_file_t *f)
{
    if (!f)
        return;
    if (f->stub_fd >= 0)
        h5sf_sysio_close(f->stub_fd);
    if (!f->mpi_dead && !h5sf_mpi_finalizing()) {
        if (f->comm != MPI_COMM_NULL)
            MPI_Comm_free(&f->comm);
        if (f->info != MPI_INFO_NULL)
            MPI_Info_free(&f->info);
    }
    sf_plan_free(&f->plan);
    h5sf_free(f->sides);
    h5sf_free(f->jobs);
    h5sf_free(f->js);
    h5sf_channels_free(f);
    h5sf_free(f->xmark);
    h5sf_free(f->made);
    h5sf_free(f->iocs);
    h5sf_free(f->leads);
    h5sf_free(f->chan);
    h5sf_free(f->chan_eoa);
    h5sf_free(f->name);
    h5sf_free(f);
}

/* A create reclaims what an earlier file of its name left: the config file
 * and subfiles of a stub removed alone (netCDF's abort path remove()s only
 * the stub) or truncated by this create (common/orphans.h).  Best effort:
 * what cannot be removed stays for h5sf-orphans. */
static int reclaim_one(const h5sf_orphan_t *o, void *arg)
{
    (void)arg;
    (void)h5sf_orphan_remove(o, NULL);
    return 0;
}

static void reclaim_orphans(const h5sf_layout_t *l, const char *stub)
{
    (void)h5sf_orphans_scan(l->config_dir[0] ? l->config_dir : l->stub_dir, stub, l->inode, reclaim_one, NULL, NULL);
}

/* A subfiled file's driver info length, which sb_decode is not told: read
 * from the file (common/drvlen.h) and broadcast with the layout.  A set
 * whose bytes hold no superblock (H5FDopen alone writes none) keeps 0,
 * and sb_decode refuses to guess. */
static int drvinfo_len(h5sf_layout_t *l, h5sf_errbuf_t *e)
{
    size_t len = 0;
    if (l->plain)
        return 0;
    if (h5sf_drvinfo_len_read(l, &len, e) < 0)
        return -1;
    l->drvinfo_len = (uint32_t)len;
    return 0;
}

/* Open the stub at its resolved path (h5sf_layout_set_stub followed a
 * symlink on purpose, so that config and subfile names derive from the real
 * stub; h5sf_sysio_open follows none).  A create of a name that holds
 * nothing uses O_EXCL: whether it made the stub decides whether its undo
 * removes it (and a failed open that made it removes it at once). */
static int open_stub(h5sf_file_t *f, const char *stub, h5sf_errbuf_t *e)
{
    const bool  creating = (f->flags & H5F_ACC_CREAT) != 0;
    struct stat st;
    bool        fresh = creating && (f->flags & H5F_ACC_EXCL);
    if (creating && !fresh)
        fresh = h5sf_sysio_fstatat(AT_FDCWD, stub, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
    if (!creating)
        f->stub_fd = h5sf_sysio_open(stub, (f->flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY, -1);
    else if (fresh && (f->stub_fd = h5sf_sysio_open(stub, O_RDWR | O_CREAT | O_EXCL, -1)) >= 0)
        f->made_stub = true;
    else if (fresh && errno != EEXIST)
        h5sf_unmake(stub);
    else if (!(f->flags & H5F_ACC_EXCL))
        f->stub_fd = h5sf_sysio_open(stub, O_RDWR | ((f->flags & H5F_ACC_TRUNC) ? O_TRUNC : 0), -1);
    if (f->stub_fd < 0)
        return h5sf_fail(e, errno, "cannot %s stub file %s%s%s%s: %s", creating ? "create" : "open", f->name,
                         strcmp(stub, f->name) ? " (" : "", strcmp(stub, f->name) ? stub : "",
                         strcmp(stub, f->name) ? ")" : "", h5sf_sysio_strerror(errno));
    return 0;
}

/* At create, before the config file is written: the config file at this
 * stub's config name may be another stub's, of the same name and inode
 * number on another file system (both map to the same names in a shared
 * directory): refuse rather than take over its set.  Otherwise the caller's
 * own files left at the subfile names are replaced (own_names, for
 * h5sf_subfile_create): programs re-create files whose config file is gone
 * (HDF5's t_vfd does), and two stubs whose config files live apart but
 * share a subfile_dir cannot be told from that (docs/security.md). */
static int check_names_free(h5sf_file_t *f, const char *stub, const struct stat *me, h5sf_errbuf_t *e)
{
    h5sf_layout_t *old   = h5sf_malloc(sizeof *old);
    char          *named = h5sf_malloc(2 * H5SF_LAYOUT_PATH_MAX), cfg[2 * H5SF_LAYOUT_PATH_MAX];
    h5sf_errbuf_t  ie    = {0};
    struct stat    st;
    int            ret = 0;
    f->own_names       = true;
    if (!old || !named)
        ret = h5sf_fail(e, ENOMEM, "out of memory");
    else if (*old = f->layout, h5sf_config_file_stub(old, named, 2 * H5SF_LAYOUT_PATH_MAX, &ie) == 0) {
        bool same = strcmp(named, stub) == 0 ||
                    (h5sf_sysio_stat(named, &st) == 0 && st.st_dev == me->st_dev && st.st_ino == me->st_ino);
        if (!same && h5sf_sysio_stat(named, &st) == 0 && (uint64_t)st.st_ino == f->layout.inode &&
            h5sf_config_path(&f->layout, cfg, sizeof cfg, e) == 0)
            ret = h5sf_fail(e, EEXIST,
                            "config file %s belongs to %s, another file with the same name and inode number %" PRIu64
                            " (on another file system): not overwritten; give %s its own config_dir and "
                            "subfile_dir",
                            cfg, named, f->layout.inode, f->name);
    }
    f->own_names = ret == 0;
    h5sf_free(old);
    h5sf_free(named);
    return ret;
}

/* The layout a create or open agrees on: rank 0's, and whether subfiles
 * left at the new names are the set's own (check_names_free). */
typedef struct layout_msg {
    h5sf_layout_t layout;
    int32_t       own_names;
} layout_msg_t;

/* Rank 0 opens (maybe creates) the stub and reads or writes the config file
 * (or finds none: a plain file); the outcome is broadcast.  Stored layout
 * wins over settings on reopen. */
static int layout_setup(h5sf_file_t *f, h5sf_errbuf_t *e)
{
    const bool creating = (f->flags & H5F_ACC_CREAT) != 0;
    int        failed   = 0;
    char       stub[2 * H5SF_LAYOUT_PATH_MAX];

    if (h5sf_layout_set_stub(&f->layout, f->name, e) < 0 || h5sf_stub_path(&f->layout, stub, sizeof stub, e) < 0)
        failed = 1;
    if (!failed && f->rank == 0) {
        struct stat st;
        if (open_stub(f, stub, e) < 0)
            failed = 1;
        else if (h5sf_sysio_fstat(f->stub_fd, &st) < 0)
            failed = h5sf_fail(e, errno, "cannot stat stub file %s: %s", f->name, strerror(errno)) < 0;
        else {
            f->layout.inode = (uint64_t)st.st_ino;
            snprintf(f->layout.config_dir, sizeof f->layout.config_dir, "%s", f->cfg.config_dir);
            if (creating) {
                f->layout.stripe_size = f->cfg.stripe_size > 0 ? f->cfg.stripe_size : H5SF_DEFAULT_STRIPE_SIZE;
                f->layout.stripe_count =
                    f->cfg.stripe_count > 0
                        ? f->cfg.stripe_count
                        : h5sf_iocmap_default_count(f->size, f->leads, f->iocs, f->nioc, H5SF_DEFAULT_SUBFILES_PER_IOC);
                f->layout.ioc_count = f->nioc;
                /* Absolute from here on: the config file records it, and
                 * every rank uses rank 0's (broadcast below). */
                if (h5sf_layout_set_subfile_dir(&f->layout, f->cfg.subfile_dir, e) < 0 ||
                    check_names_free(f, stub, &st, e) < 0)
                    failed = 1;
                if (!failed)
                    reclaim_orphans(&f->layout, stub);
                if (!failed && h5sf_config_file_write(&f->layout, e) < 0)
                    failed = 1;
                f->made_config = !failed;
            }
            /* No config file: a plain file, unless the stub is a subfiled
             * file's (h5sf_layout_load; delete and get_files decide alike). */
            else if (h5sf_layout_load(&f->layout, f->stub_fd, f->name, e) < 0 || drvinfo_len(&f->layout, e) < 0)
                failed = 1;
        }
    }
    if (h5sf_agree(f->comm, failed, e) < 0)
        return -1;
    layout_msg_t m; /* on the application's thread: the stack holds it */
    m.layout    = f->layout;
    m.own_names = f->own_names;
    if (h5sf_coll_bcast(&m, (int)sizeof m, 0, f->comm) != MPI_SUCCESS)
        return h5sf_fail(e, 0, "MPI_Bcast of the layout failed");
    f->layout    = m.layout;
    f->own_names = m.own_names != 0;
    /* Other ranks keep a stub descriptor only to mirror superblock writes. */
    if (f->rank != 0 && (f->flags & H5F_ACC_RDWR)) {
        if (h5sf_stub_path(&f->layout, stub, sizeof stub, e) < 0)
            failed = 1;
        else if ((f->stub_fd = h5sf_sysio_open(stub, O_RDWR, -1)) < 0)
            failed = h5sf_fail(e, errno, "cannot open stub file %s: %s", f->name, h5sf_sysio_strerror(errno)) < 0;
    }
    return h5sf_agree(f->comm, failed, e);
}

/* A create that failed leaves nothing it made: its subfiles (each owner
 * its own), the config file it wrote (which names subfiles that would not
 * exist) and the stub, if it made it (a truncated stub of an earlier file
 * stays, as sec2 leaves one).  Every rank gets here, the failure agreed.
 * Best effort: the failure is what the caller hears. */
static void create_undo(h5sf_file_t *f)
{
    char          path[2 * H5SF_LAYOUT_PATH_MAX];
    h5sf_errbuf_t ignored = {0};
    struct stat   st, now;
    for (int s = 0; f->made && s < f->layout.stripe_count; s++)
        if (f->made[s] && h5sf_subfile_path(&f->layout, s, path, sizeof path, &ignored) == 0)
            (void)h5sf_sysio_unlink(path);
    if (f->made_config && h5sf_config_path(&f->layout, path, sizeof path, &ignored) == 0)
        (void)h5sf_sysio_unlink(path);
    /* The stub only while its name still holds the file this create made. */
    if (f->made_stub && f->stub_fd >= 0 && h5sf_stub_path(&f->layout, path, sizeof path, &ignored) == 0 &&
        h5sf_sysio_fstat(f->stub_fd, &st) == 0 && h5sf_sysio_fstatat(AT_FDCWD, path, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
        st.st_dev == now.st_dev && st.st_ino == now.st_ino)
        (void)h5sf_sysio_unlink(path);
}

/* Settings shape collective steps: the channel, the IOC selection, the
 * layout of a new file, fsync's barrier at flush, the statistics'
 * reductions at close.  Each rank resolved its own (a wrapper script or a
 * setenv() may give ranks different environments; a value that is invalid
 * anywhere already failed the open everywhere); rank 0's now become every
 * rank's, so all take the same path.  The thread level joins them: the
 * lowest of all ranks decides, so channel=auto picks the IOC channel only
 * if every rank can run it, and channel=ioc fails on every rank or none. */
typedef struct shared_settings {
    H5FD_h5sf_config_t cfg;
    int32_t            stats_on;
} shared_settings_t;

static int settings_agree(h5sf_file_t *f, int *provided, h5sf_errbuf_t *e)
{
    shared_settings_t s;
    int               level = *provided;
    memset(&s, 0, sizeof s);
    s.cfg      = f->cfg;
    s.stats_on = h5sf_stats_wanted();
    if (h5sf_coll_bcast(&s, (int)sizeof s, 0, f->comm) != MPI_SUCCESS ||
        h5sf_coll_allreduce(&level, provided, 1, MPI_INT, MPI_MIN, f->comm) != MPI_SUCCESS)
        return h5sf_fail(e, 0, "cannot share rank 0's settings with the other ranks");
    f->cfg      = s.cfg;
    f->cfg.comm = MPI_COMM_NULL; /* rank 0's handle values mean nothing here */
    f->cfg.info = MPI_INFO_NULL;
    f->stats_on = s.stats_on != 0;
    return 0;
}

/* Settings for an open or delete whose own settings failed on this rank:
 * the defaults, with the communicator h5sf's driver info names (if any),
 * so the rank still reaches the agreements on the fapl's communicator,
 * whose other ranks may be fine and waiting. */
void h5sf_fallback_cfg(hid_t fapl_id, H5FD_h5sf_config_t *cfg)
{
    const H5FD_h5sf_config_t *di = NULL;
    h5sf_config_defaults(cfg);
    H5E_BEGIN_TRY { di = H5Pget_driver_info(fapl_id); }
    H5E_END_TRY
    if (di) {
        cfg->comm = di->comm;
        cfg->info = di->info;
    }
}

/* This rank cannot even make its file: it still takes the steps every
 * rank takes up to the first agreement (the communicator, then the
 * agreement), failing it with e, so that the others do not wait. */
static void open_fail_early(hid_t fapl_id, h5sf_errbuf_t *e)
{
    H5FD_h5sf_config_t cfg;
    MPI_Comm           comm;
    MPI_Info           info;
    h5sf_errbuf_t      ceb = {0};
    h5sf_fallback_cfg(fapl_id, &cfg);
    if (h5sf_fapl_comm(fapl_id, &cfg, &comm, &info, NULL, &ceb) < 0)
        return;
    h5sf_agree(comm, 1, e);
    MPI_Comm_free(&comm);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
}

/* Why an open step failed: the HDF5 error class for the message in eb. */
typedef struct open_err {
    hid_t         maj, min;
    h5sf_errbuf_t eb;
} open_err_t;

static int open_fail(open_err_t *oe, hid_t maj, hid_t min)
{
    oe->maj = maj;
    oe->min = min;
    return -1;
}

/* Step 1: MPI's finalize hook and a new file with every handle set that
 * h5sf_file_free reads.  A rank that cannot make it still reaches the
 * first agreement, failing it (open_fail_early). */
static int file_new(const char *name, unsigned flags, hid_t fapl_id, bool solo, int *provided, h5sf_file_t **out,
                    open_err_t *oe)
{
    h5sf_file_t *f;
    if (!solo && h5sf_mpi_ensure(provided, &oe->eb) < 0)
        return open_fail(oe, H5E_VFL, H5E_CANTINIT);
    if (!solo)
        h5sf_mpi_on_finalize(h5sf_on_mpi_finalize);
    if ((f = *out = h5sf_calloc(1, sizeof *f))) {
        f->stub_fd = -1;
        f->comm    = MPI_COMM_NULL;
        f->info    = MPI_INFO_NULL;
        f->flags   = flags;
        f->name    = h5sf_strdup(name);
    }
    if (f && f->name)
        return 0;
    h5sf_fail(&oe->eb, ENOMEM, "out of memory");
    if (!solo)
        open_fail_early(fapl_id, &oe->eb);
    return open_fail(oe, H5E_RESOURCE, H5E_NOSPACE);
}

/* Step 2: this rank's settings (a bad value fails here), the communicator,
 * then rank 0's settings and the lowest thread level for every rank. */
static int settings_share(h5sf_file_t *f, hid_t fapl_id, bool solo, int *provided, open_err_t *oe)
{
    h5sf_errbuf_t ceb   = {0};
    bool          named = false;
    int           rc, failed = 0;
    char          why[MPI_MAX_ERROR_STRING];
    if (h5sf_fapl_resolve(fapl_id, &f->cfg, &oe->eb) < 0 || h5sf_pool_setting(&f->pool_threads, &oe->eb) < 0)
        failed = 1;
    if (failed) /* bad settings: still agree on the fapl's communicator */
        h5sf_fallback_cfg(fapl_id, &f->cfg);
    if (!solo && h5sf_fapl_comm(fapl_id, &f->cfg, &f->comm, &f->info, &named, &ceb) < 0) {
        oe->eb = ceb;
        return open_fail(oe, H5E_VFL, H5E_CANTINIT);
    }
    f->serial = !named;
    /* cfg's handles belong to the fapl; the file keeps only its dups. */
    f->cfg.comm = MPI_COMM_NULL;
    f->cfg.info = MPI_INFO_NULL;
    /* HDF5 insists on a real info object (H5Fget_access_plist fails on
     * MPI_INFO_NULL), so keep an empty one when none was given. */
    if (!solo && f->info == MPI_INFO_NULL && (rc = h5sf_mpisite_info_create(&f->info)) != MPI_SUCCESS && !failed)
        failed = h5sf_fail(&oe->eb, 0, "cannot create an MPI info object: %s", h5sf_mpisite_errstr(rc, why)) < 0;
    h5sf_coll_rank_size(f->comm, &f->rank, &f->size);
    if (h5sf_agree(f->comm, failed, &oe->eb) < 0 || settings_agree(f, provided, &oe->eb) < 0)
        return open_fail(oe, H5E_VFL, H5E_CANTOPENFILE);
    /* Without MPI_THREAD_MULTIPLE auto takes the direct channel silently (a
     * successful open prints nothing: programs compare their output byte
     * for byte; H5SF_LOG=debug says why); a named IOC channel fails. */
    if (!solo && f->cfg.channel == H5FD_H5SF_CHANNEL_IOC && *provided != MPI_THREAD_MULTIPLE) {
        h5sf_fail(&oe->eb, 0,
                  "channel=ioc needs MPI_THREAD_MULTIPLE, but MPI provides thread level %d; "
                  "initialize MPI with MPI_Init_thread(MPI_THREAD_MULTIPLE) or use channel=direct",
                  *provided);
        return open_fail(oe, H5E_VFL, H5E_UNSUPPORTED);
    }
    return 0;
}

/* Step 3: the stub, the layout and the IOC ranks.  The IOC list depends on
 * the subfile count, as in the built-in: the setting's for a new file
 * (whose layout needs the IOC count), the stored one for an existing file
 * (so its layout is read first). */
static int layout_and_iocs(h5sf_file_t *f, open_err_t *oe)
{
    const bool creating = (f->flags & H5F_ACC_CREAT) != 0;
    int        failed   = 0;
    if (!creating && layout_setup(f, &oe->eb) < 0)
        return open_fail(oe, H5E_VFL, H5E_CANTOPENFILE);
    if (h5sf_topology_select(f->comm, &f->cfg, creating ? f->cfg.stripe_count : f->layout.stripe_count, &f->iocs,
                             &f->nioc, &f->nnodes, &f->leads, &oe->eb) < 0)
        failed = 1;
    if (h5sf_agree(f->comm, failed, &oe->eb) < 0 || (creating && layout_setup(f, &oe->eb) < 0))
        return open_fail(oe, H5E_VFL, H5E_CANTOPENFILE);
    return 0;
}

/* Step 4: the channel (h5sf_channel_pick) and the stripe plan.  Agreed: a
 * rank that left here alone would leave the others in the channels'
 * collectives. */
static int channel_and_plan(h5sf_file_t *f, int provided, open_err_t *oe)
{
    int failed = 0;
    f->channel = h5sf_channel_pick(f, provided, NULL);
    if (h5sf_fault("nomem-plan", f->rank) ||
        sf_plan_init(&f->plan, (uint64_t)f->layout.stripe_size, f->layout.stripe_count) < 0 ||
        !(f->xmark = h5sf_calloc((size_t)f->layout.stripe_count, sizeof *f->xmark)))
        failed = h5sf_fail(&oe->eb, ENOMEM, "out of memory for the stripe plan") < 0;
    if (h5sf_agree(f->comm, failed, &oe->eb) < 0)
        return open_fail(oe, H5E_RESOURCE, H5E_NOSPACE);
    return 0;
}

/* Step 5: the channels (every rank fails together: agreed), then H5SF_LOG
 * and the registry of open files. */
static int channels_start(h5sf_file_t *f, int provided, open_err_t *oe)
{
    f->stats_transfers = h5sf_stats_transfers_wanted();
    if (h5sf_channels_open(f, f->flags, &oe->eb) < 0) {
        /* Close, collectively, what was opened, so a failed open leaks no
         * descriptors or IOC state. */
        h5sf_errbuf_t tmp = {0};
        H5E_BEGIN_TRY { h5sf_channels_close(f, &tmp); }
        H5E_END_TRY
        return open_fail(oe, H5E_VFL, H5E_CANTOPENFILE);
    }
    h5sf_log_open(f, provided);
    h5sf_free(f->leads); /* only samenode.c's setup needed it */
    f->leads = NULL;
    h5sf_registry_add(f);
    return 0;
}

/* The class's open callback: the five steps above; a failed create leaves
 * nothing it made (create_undo). */
H5FD_t *h5sf_open(const char *name, unsigned flags, hid_t fapl_id, haddr_t maxaddr)
{
    h5sf_file_t *f         = NULL;
    H5FD_t      *ret_value = NULL;
    open_err_t   oe        = {0};
    int          provided  = MPI_THREAD_SINGLE;
    const bool   solo      = h5sf_solo_open(fapl_id); /* no MPI: comm stays MPI_COMM_NULL */

    if (!name || !*name)
        H5SF_GOTO(NULL, H5E_ARGS, H5E_BADVALUE, "invalid file name");
    if (maxaddr == 0 || maxaddr > H5SF_MAXADDR)
        H5SF_GOTO(NULL, H5E_ARGS, H5E_BADRANGE, "bad maxaddr");
    if (file_new(name, flags, fapl_id, solo, &provided, &f, &oe) < 0 ||
        settings_share(f, fapl_id, solo, &provided, &oe) < 0 || layout_and_iocs(f, &oe) < 0 ||
        channel_and_plan(f, provided, &oe) < 0 || channels_start(f, provided, &oe) < 0)
        H5SF_GOTO_EB(NULL, oe.maj, oe.min, &oe.eb);
    ret_value = &f->pub;
done:
    if (!ret_value && f && (flags & H5F_ACC_CREAT))
        create_undo(f);
    if (!ret_value && f)
        h5sf_file_free(f);
    return ret_value;
}
