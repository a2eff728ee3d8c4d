/*
 * libh5sf_preload.so -- adopt h5sf in programs that hard-code MPI-IO.
 *
 *   LD_PRELOAD=<prefix>/lib/h5sf/<mpi>/preload/libh5sf_preload.so H5SF_REDIRECT_MPIO=1 mpiexec -n 4 ./prog
 *   (Open MPI: mpiexec -x LD_PRELOAD=... -x H5SF_REDIRECT_MPIO=1 ...)
 *
 * With H5SF_REDIRECT_MPIO=1 the program's H5Pset_fapl_mpio(fapl, comm, info)
 * sets the same communicator and info as MPI parameters of the fapl
 * (H5Pset_mpi_params, which duplicates both like the MPI-IO driver does) and
 * selects the h5sf driver by name; h5sf's settings then come from the H5SF_*
 * environment variables.  H5Pget_fapl_mpio on such a fapl returns those MPI
 * parameters, so programs that read them back keep working.  Unset or 0:
 * both calls go straight to HDF5 (dlsym(RTLD_NEXT)).
 *
 * A subfiled file opened with the default (sec2) driver -- rank 0 reading
 * back alone what every rank wrote -- is opened by the same driver
 * serially (MPI_COMM_SELF) instead, since sec2 would read the stub as the
 * whole file.
 * The reverse: an existing plain HDF5 file (no config file in its config
 * directory: H5SF_CONFIG_DIR, else next to it) opened through a redirected
 * fapl is opened with MPI-IO, as asked; rank 0 of the fapl's communicator
 * decides that for every rank.  A plain H5Fcreate(H5F_ACC_TRUNC) over a
 * subfiled file removes its config file and subfiles: exactly the names of
 * its set, in the subfile_dir its config file names, and only the
 * caller's own regular files, by the rules of the driver's own reclaim
 * (common/orphans.h).
 *
 * H5SF_REDIRECT_MPIO=subfiling selects HDF5's built-in subfiling driver
 * instead, so a program can be compared under both drivers.
 *
 * H5Fset_mpi_atomicity / H5Fget_mpi_atomicity on a redirected file are
 * answered here (HDF5 itself would crash, see below), locally: the shim
 * notes at open which files h5sf opened, so one rank may ask alone.
 *
 * With H5SF_PRELOAD_THREAD_MULTIPLE=1, the program's plain MPI_Init becomes
 * MPI_Init_thread(MPI_THREAD_MULTIPLE), so programs that never ask for
 * threads can use I/O concentrators (which need MPI_THREAD_MULTIPLE); a
 * program's own MPI_Init_thread is left alone.
 *
 * MPI_Finalize runs h5sf's finalize hooks before PMPI_Finalize, while MPI
 * still serializes threads (see MPI_Finalize below).
 *
 * Limits (docs/user-guide.md): H5Fget_vfd_handle gives h5sf's handle (a
 * pointer to the stub's file descriptor), not an MPI_File; a program that
 * checks H5Pget_driver() == H5FD_MPIO sees h5sf instead; without the
 * MPI_Init opt-in, programs that call plain MPI_Init get the direct channel;
 * a program linked statically against HDF5 cannot be interposed at all.
 *
 * The plugin is found through HDF5_PLUGIN_PATH, else in the installed plugin
 * directory of the same MPI, the parent of this library's directory
 * (<libdir>/h5sf/<mpi>, H5SF_PRELOAD_PLUGIN_DIR from preload/preload.cmake).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>
#include <hdf5.h>
#include "orphans.h"
#include "settings.h"
#include "sysio.h"

#define SHIM "h5sf_preload"

typedef herr_t (*set_mpio_fn)(hid_t, MPI_Comm, MPI_Info);
typedef herr_t (*get_mpio_fn)(hid_t, MPI_Comm *, MPI_Info *);

/* The driver a redirect selects: "h5sf", or HDF5's built-in "subfiling"
 * (H5SF_REDIRECT_MPIO=subfiling, to compare the two under one program). */
static const char *target = "h5sf";

/* A refusal of one of the HDF5 calls the shim answers, reported as HDF5's
 * own API functions report theirs: the reason is pushed on the error stack
 * (callers such as h5py raise it; with the reason on stderr only, h5py said
 * "Unspecified error"), and the program's automatic error handler, if it
 * left one on, prints the stack.  REFUSE starts a new stack, as an API call
 * does; REFUSE_MORE adds to what the HDF5 call that failed pushed.
 * Returns -1. */
#define REFUSE(maj, min, ...)      refuse(__func__, __LINE__, 0, maj, min, __VA_ARGS__)
#define REFUSE_MORE(maj, min, ...) refuse(__func__, __LINE__, 1, maj, min, __VA_ARGS__)
static int refuse(const char *func, unsigned line, int keep, hid_t maj, hid_t min, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int refuse(const char *func, unsigned line, int keep, hid_t maj, hid_t min, const char *fmt, ...)
{
    static hid_t cls = H5I_INVALID_HID;
    char         msg[1024];
    va_list      ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cls == H5I_INVALID_HID)
        cls = H5Eregister_class(SHIM, "h5sf MPI-IO redirect", "1");
    if (!keep)
        H5Eclear2(H5E_DEFAULT);
    if (cls == H5I_INVALID_HID || H5Epush2(H5E_DEFAULT, __FILE__, func, line, cls, maj, min, "%s", msg) < 0) {
        fprintf(stderr, SHIM ": %s\n", msg);
        return -1;
    }
    H5E_auto2_t print = NULL;
    void       *data  = NULL;
    if (H5Eget_auto2(H5E_DEFAULT, &print, &data) >= 0 && print)
        print(H5E_DEFAULT, data);
    return -1;
}

/* 1: redirect, 0: pass through, -1: bad value. */
static int redirect_mode(void)
{
    const char *v = h5sf_var(H5SF_VAR_REDIRECT_MPIO);
    if (!v || !*v || !strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
        return 0;
    if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
        return 1;
    if (!strcmp(v, "subfiling")) {
        target = "subfiling";
        return 1;
    }
    return -1;
}

/* HDF5's own function; NULL only if this library is used without HDF5. */
static void *next_symbol(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p)
        fprintf(stderr, SHIM ": cannot find HDF5's %s (%s)\n", name, dlerror());
    return p;
}

/* Add <dir of this library>/H5SF_PRELOAD_PLUGIN_DIR to HDF5's plugin search
 * path, so an installed shim finds the installed plugin without
 * HDF5_PLUGIN_PATH.  The real path: <libdir>/libh5sf_preload.so is a link. */
static void add_installed_plugin_dir(void)
{
    Dl_info     di;
    char        dir[PATH_MAX], self[PATH_MAX], real[PATH_MAX];
    struct stat st;
    if (!dladdr((void *)add_installed_plugin_dir, &di) || !di.dli_fname || !realpath(di.dli_fname, self))
        return;
    const char *slash = strrchr(self, '/');
    if (!slash)
        return;
    int n = snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - self), self, H5SF_PRELOAD_PLUGIN_DIR);
    if (n > 0 && (size_t)n < sizeof dir && realpath(dir, real) && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
        H5PLappend(real);
}

/* Driver id of h5sf once a redirect has selected it (for H5Pget_fapl_mpio). */
static hid_t h5sf_driver_id = H5I_INVALID_HID;

/* Select h5sf on fapl_id; loads the plugin on first use. */
static herr_t select_h5sf(hid_t fapl_id)
{
    static int tried_install_dir;
    herr_t     ret = -1;
    if (!strcmp(target, "subfiling")) {
        /* Built-in drivers are not found by name before their first use. */
        typedef herr_t (*set_sf_fn)(hid_t, const void *);
        set_sf_fn set_sf = (set_sf_fn)dlsym(RTLD_DEFAULT, "H5Pset_fapl_subfiling");
        if (!set_sf)
            return REFUSE(H5E_VFL, H5E_UNSUPPORTED,
                          "H5SF_REDIRECT_MPIO=subfiling but HDF5's subfiling driver is not built in");
        if (set_sf(fapl_id, NULL) < 0)
            return REFUSE_MORE(H5E_VFL, H5E_CANTSET,
                               "H5SF_REDIRECT_MPIO=subfiling but HDF5's subfiling driver "
                               "refused the file access property list");
        h5sf_driver_id = H5Pget_driver(fapl_id);
        return 0;
    }
    H5E_BEGIN_TRY { ret = H5Pset_driver_by_name(fapl_id, target, NULL); }
    H5E_END_TRY
    if (ret < 0 && !tried_install_dir) {
        tried_install_dir = 1;
        add_installed_plugin_dir();
        H5E_BEGIN_TRY { ret = H5Pset_driver_by_name(fapl_id, target, NULL); }
        H5E_END_TRY
    }
    if (ret < 0)
        return REFUSE_MORE(H5E_PLUGIN, H5E_CANTLOAD,
                           "H5SF_REDIRECT_MPIO=1 but the h5sf driver plugin cannot be loaded; set HDF5_PLUGIN_PATH "
                           "to the directory that holds libh5sf.so (<prefix>/lib/h5sf/<mpi>)");
    h5sf_driver_id = H5Pget_driver(fapl_id);
    return ret;
}

herr_t H5Pset_fapl_mpio(hid_t fapl_id, MPI_Comm comm, MPI_Info info)
{
    static set_mpio_fn real;
    int                mode = redirect_mode();
    if (mode < 0)
        return REFUSE(H5E_PLIST, H5E_BADVALUE,
                      "H5SF_REDIRECT_MPIO=\"%.100s\": expected 1 (redirect H5Pset_fapl_mpio to h5sf), subfiling (to "
                      "HDF5's built-in subfiling driver) or 0 (leave it alone)",
                      h5sf_var(H5SF_VAR_REDIRECT_MPIO));
    if (mode == 0) {
        if (!real && !(real = (set_mpio_fn)next_symbol("H5Pset_fapl_mpio")))
            return -1;
        return real(fapl_id, comm, info);
    }
    /* Same checks and copies as the MPI-IO driver: H5Pset_mpi_params
     * rejects MPI_COMM_NULL and duplicates comm and info. */
    if (H5Pset_mpi_params(fapl_id, comm, info) < 0)
        return REFUSE_MORE(H5E_PLIST, H5E_CANTSET,
                           "H5Pset_fapl_mpio redirected to h5sf: H5Pset_mpi_params failed (not a file access "
                           "property list, or an invalid communicator)");
    return select_h5sf(fapl_id);
}

herr_t H5Pget_fapl_mpio(hid_t fapl_id, MPI_Comm *comm, MPI_Info *info)
{
    static get_mpio_fn real;
    if (h5sf_driver_id >= 0 && redirect_mode() == 1) {
        hid_t drv = H5I_INVALID_HID;
        H5E_BEGIN_TRY { drv = H5Pget_driver(fapl_id); }
        H5E_END_TRY
        if (drv == h5sf_driver_id) { /* a redirected fapl: answer as MPI-IO would (duplicates) */
            /* H5Pget_fapl_mpio takes NULL for either; H5Pget_mpi_params does not. */
            MPI_Comm c = MPI_COMM_NULL;
            MPI_Info i = MPI_INFO_NULL;
            if (H5Pget_mpi_params(fapl_id, &c, &i) < 0)
                return -1;
            if (comm)
                *comm = c;
            else if (c != MPI_COMM_NULL)
                MPI_Comm_free(&c);
            if (info)
                *info = i;
            else if (i != MPI_INFO_NULL)
                MPI_Info_free(&i);
            return 0;
        }
    }
    if (!real && !(real = (get_mpio_fn)next_symbol("H5Pget_fapl_mpio")))
        return -1;
    return real(fapl_id, comm, info);
}

/* Files open with h5sf through this shim, by HDF5's file number (the same
 * for every identifier of one open file, never reused within a process),
 * so that the atomicity calls below can tell them apart locally: asking the
 * open file's access list would duplicate its communicator, a collective
 * call that one rank alone may not make.  Never shrinks: a few bytes per
 * open. */
static unsigned long *h5sf_filenos;
static size_t         n_h5sf_filenos, cap_h5sf_filenos;

/* Note `file` (just returned by an open) if `fapl` opened it with h5sf. */
static hid_t remember_open(hid_t file, hid_t fapl)
{
    hid_t         drv = H5I_INVALID_HID;
    unsigned long no  = 0;
    if (file < 0 || h5sf_driver_id < 0)
        return file;
    H5E_BEGIN_TRY { drv = H5Pget_driver(fapl == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl); }
    H5E_END_TRY
    if (drv != h5sf_driver_id || H5Fget_fileno(file, &no) < 0)
        return file;
    if (n_h5sf_filenos == cap_h5sf_filenos) {
        size_t         cap = cap_h5sf_filenos ? 2 * cap_h5sf_filenos : 16;
        unsigned long *p   = realloc(h5sf_filenos, cap * sizeof *p);
        if (!p) {
            fprintf(stderr, SHIM ": out of memory noting an h5sf file; H5Fget/set_mpi_atomicity on it will "
                                 "go to HDF5\n");
            return file;
        }
        h5sf_filenos     = p;
        cap_h5sf_filenos = cap;
    }
    h5sf_filenos[n_h5sf_filenos++] = no;
    return file;
}

/* A serial open of a subfiled file: H5Fopen with a fapl that names no MPI
 * driver (typically rank 0 reading back, alone, what all ranks wrote through
 * H5Pset_fapl_mpio).  The default driver would read the stub as if it were
 * the whole file, so such an open goes to the redirect's driver, serially
 * (MPI_COMM_SELF).  A subfiled file is a stub whose config file
 * <name>.subfile_<inode>.config sits in its config directory: the stub's,
 * or the one h5sf's settings name (H5SF_CONFIG_DIR, else the built-in
 * driver's H5FD_SUBFILING_CONFIG_FILE_PREFIX), as h5sf itself looks. */
typedef hid_t (*fopen_fn)(const char *, unsigned, hid_t);

/* The config file a subfiled `name` would have; 0 if name is a regular file
 * (so that it may have one) and the path fits. */
static int config_file_of(const char *name, char *cfg, size_t n)
{
    struct stat st;
    const char *dir = h5sf_option_env("config_dir"), *slash;
    int         w;
    if (!name || stat(name, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    if (dir && *dir) {
        slash = strrchr(name, '/');
        w = snprintf(cfg, n, "%s/%s.subfile_%llu.config", dir, slash ? slash + 1 : name, (unsigned long long)st.st_ino);
    }
    else
        w = snprintf(cfg, n, "%s.subfile_%llu.config", name, (unsigned long long)st.st_ino);
    return w > 0 && (size_t)w < n ? 0 : -1;
}

/* 1 if name is a subfiled file, as this process sees it. */
static int is_subfiled(const char *name)
{
    struct stat st;
    char        cfg[2 * PATH_MAX + 64];
    return config_file_of(name, cfg, sizeof cfg) == 0 && stat(cfg, &st) == 0;
}

/* 1 if name is an existing plain HDF5 file, as rank 0 of comm sees it.  One
 * rank decides for all: ranks that saw the file differently (another mount,
 * another working directory) would otherwise take different drivers and
 * then run different collectives.  Collective over comm. */
static int plain_on_rank0(const char *name, MPI_Comm comm)
{
    struct stat st;
    int         rank = 0, plain = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        plain = !is_subfiled(name) && stat(name, &st) == 0;
    if (MPI_Bcast(&plain, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
        plain = 0; /* h5sf then reports what is wrong */
    return plain;
}

hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl_id)
{
    static fopen_fn real;
    if (!real && !(real = (fopen_fn)next_symbol("H5Fopen")))
        return H5I_INVALID_HID;
    if (redirect_mode() != 1)
        return real(name, flags, fapl_id);
    hid_t drv = H5I_INVALID_HID, src = fapl_id == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl_id;
    H5E_BEGIN_TRY { drv = H5Pget_driver(src); }
    H5E_END_TRY
    /* A serial open: this process alone decides.  A fapl that names no
     * communicator stays so: h5sf opens it serially, on MPI_COMM_SELF, with
     * sec2's rules (variable-length data and all); one that names a
     * communicator for sec2 (which ignores it) gets MPI_COMM_SELF, lest
     * this lone open wait for the other ranks. */
    if (drv >= 0 && drv == H5FD_SEC2 && is_subfiled(name)) {
        hid_t    fapl = H5Pcopy(src), ret = H5I_INVALID_HID;
        MPI_Comm comm = MPI_COMM_NULL;
        MPI_Info info = MPI_INFO_NULL;
        herr_t   ok   = fapl >= 0 ? 0 : -1;
        if (ok >= 0) {
            H5E_BEGIN_TRY { ok = H5Pget_mpi_params(fapl, &comm, &info); }
            H5E_END_TRY
            if (ok >= 0 && comm != MPI_COMM_NULL)
                ok = H5Pset_mpi_params(fapl, MPI_COMM_SELF, MPI_INFO_NULL);
        }
        if (comm != MPI_COMM_NULL)
            MPI_Comm_free(&comm);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        if (ok >= 0 && select_h5sf(fapl) >= 0)
            ret = remember_open(real(name, flags, fapl), fapl);
        if (fapl >= 0)
            H5Pclose(fapl);
        return ret;
    }
    /* The reverse: a plain HDF5 file (written serially, say) opened through
     * a redirected fapl stays with MPI-IO, as the program asked.  Every rank
     * of the fapl's communicator is in this open, so it may decide
     * collectively. */
    if (drv >= 0 && drv == h5sf_driver_id) {
        static set_mpio_fn set_real;
        MPI_Comm           comm = MPI_COMM_NULL;
        MPI_Info           info = MPI_INFO_NULL;
        hid_t              fapl = H5I_INVALID_HID, ret = H5I_INVALID_HID;
        herr_t             got = -1;
        H5E_BEGIN_TRY { got = H5Pget_mpi_params(src, &comm, &info); }
        H5E_END_TRY
        if (got < 0 || comm == MPI_COMM_NULL || !plain_on_rank0(name, comm))
            ret = remember_open(real(name, flags, fapl_id), fapl_id);
        else {
            if (!set_real)
                set_real = (set_mpio_fn)next_symbol("H5Pset_fapl_mpio");
            if ((fapl = H5Pcopy(src)) >= 0 && set_real && set_real(fapl, comm, info) >= 0)
                ret = real(name, flags, fapl);
        }
        if (comm != MPI_COMM_NULL)
            MPI_Comm_free(&comm);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        if (fapl >= 0)
            H5Pclose(fapl);
        return ret;
    }
    return remember_open(real(name, flags, fapl_id), fapl_id);
}

/* One set of the name a plain create replaces: removed, or said why not. */
static int remove_one(const h5sf_orphan_t *o, void *arg)
{
    h5sf_errbuf_t e = {0};
    (void)arg;
    if (h5sf_orphan_remove(o, &e) != 0) {
        for (char *c = e.msg; *c; c++) /* names from a config file: no terminal controls */
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        fprintf(stderr, SHIM ": H5Fcreate over a subfiled file: its old pieces were not removed: %.400s\n", e.msg);
    }
    return 0;
}

/* Remove the config file and the subfiles of name, a subfiled file that a
 * plain H5Fcreate(H5F_ACC_TRUNC) is replacing (the same inode goes on):
 * exactly the set its config file describes, in the subfile_dir it names,
 * by the driver's own rules (common/orphans.h): names of that set only
 * (h5sf_setname_match), the caller's own regular files only; a set
 * another user's config file describes is left alone, and said so. */
static void remove_subfiled_pieces(const char *name)
{
    h5sf_layout_t *l = calloc(1, sizeof *l);
    h5sf_errbuf_t  e = {0};
    struct stat    st;
    char           stub[2 * H5SF_LAYOUT_PATH_MAX + 2];
    if (l && h5sf_sysio_stat(name, &st) == 0 && h5sf_layout_set_stub(l, name, &e) == 0) {
        const char *dir = h5sf_option_env("config_dir");
        snprintf(stub, sizeof stub, "%s%s%s", l->stub_dir, strcmp(l->stub_dir, "/") ? "/" : "", l->base);
        (void)h5sf_orphans_scan(dir && *dir ? dir : l->stub_dir, stub, (uint64_t)st.st_ino, remove_one, NULL, NULL);
    }
    free(l);
}

typedef hid_t (*fcreate_fn)(const char *, unsigned, hid_t, hid_t);

/* A plain (not redirected) H5Fcreate that truncates a subfiled file: its
 * config file and subfiles go too, so the new plain file is never taken
 * for a subfiled one. */
hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl_id, hid_t fapl_id)
{
    static fcreate_fn real;
    if (!real && !(real = (fcreate_fn)next_symbol("H5Fcreate")))
        return H5I_INVALID_HID;
    if (redirect_mode() == 1 && (flags & H5F_ACC_TRUNC) && is_subfiled(name)) {
        hid_t drv = H5I_INVALID_HID;
        H5E_BEGIN_TRY { drv = H5Pget_driver(fapl_id == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl_id); }
        H5E_END_TRY
        if (drv >= 0 && drv == H5FD_SEC2)
            remove_subfiled_pieces(name);
    }
    return remember_open(real(name, flags, fcpl_id, fapl_id), fapl_id);
}

/* Plain MPI_Init through the profiling interface, upgraded on request. */
int MPI_Init(int *argc, char ***argv)
{
    const char *v = h5sf_var(H5SF_VAR_PRELOAD_THREAD_MULTIPLE);
    int         provided;
    if (!v || strcmp(v, "1") != 0)
        return PMPI_Init(argc, argv);
    int rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    if (rc == MPI_SUCCESS && provided != MPI_THREAD_MULTIPLE) {
        int rank = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, SHIM ": H5SF_PRELOAD_THREAD_MULTIPLE=1 but MPI provides thread level %d only\n", provided);
    }
    return rc;
}

/* MPI_Finalize: h5sf's finalize hooks run first, while MPI still
 * serializes threads (h5sf_mpi_finalize_now, vfd/mpi.c).  MPICH 4.0.2 turns
 * its locking off before it runs the MPI_COMM_SELF callbacks that would
 * otherwise run them, and aborts at the end when an IOC thread was inside
 * MPI at that moment.  The plugin was loaded by HDF5 with RTLD_LOCAL, so it
 * is looked up among the loaded objects by name.  (The program's own link
 * to it, if any, comes first.) */
static int finalize_plugin(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;
    /* libh5sf.so as a plugin, libh5sf.so.0 where the program links it */
    if (!base || strncmp(base + 1, "libh5sf.so", 10) || (base[11] && base[11] != '.'))
        return 0;
    void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
        void (*now)(void) = (void (*)(void))dlsym(h, "h5sf_mpi_finalize_now");
        if (now)
            now();
        dlclose(h);
    }
    return 1;
}

int MPI_Finalize(void)
{
    dl_iterate_phdr(finalize_plugin, NULL);
    return PMPI_Finalize();
}

/* HDF5 1.14 hands H5Fset/get_mpi_atomicity to MPI_File_set/get_atomicity on
 * any driver that has MPI, treating its file struct as the MPI-IO driver's:
 * on an h5sf file that crashes.  For redirected programs, answer here. */
typedef herr_t (*set_atom_fn)(hid_t, hbool_t);
typedef herr_t (*get_atom_fn)(hid_t, hbool_t *);

/* 1 if file_id is open with h5sf (and a redirect has selected it).  Local:
 * MPI lets one rank alone ask about atomicity, so nothing collective here. */
static int is_h5sf_file(hid_t file_id)
{
    unsigned long no = 0;
    herr_t        r  = -1;
    if (h5sf_driver_id < 0 || redirect_mode() != 1)
        return 0;
    H5E_BEGIN_TRY { r = H5Fget_fileno(file_id, &no); }
    H5E_END_TRY
    for (size_t i = 0; r >= 0 && i < n_h5sf_filenos; i++)
        if (h5sf_filenos[i] == no)
            return 1;
    return 0;
}

herr_t H5Fset_mpi_atomicity(hid_t file_id, hbool_t flag)
{
    static set_atom_fn real;
    if (is_h5sf_file(file_id)) {
        if (!flag)
            return 0; /* non-atomic is what h5sf provides anyway */
        return REFUSE(H5E_FILE, H5E_UNSUPPORTED,
                      "H5Fset_mpi_atomicity(true) on a file redirected to h5sf: MPI "
                      "atomic mode is an MPI-IO feature that h5sf does not provide");
    }
    if (!real && !(real = (set_atom_fn)next_symbol("H5Fset_mpi_atomicity")))
        return -1;
    return real(file_id, flag);
}

herr_t H5Fget_mpi_atomicity(hid_t file_id, hbool_t *flag)
{
    static get_atom_fn real;
    if (is_h5sf_file(file_id)) {
        if (!flag)
            return REFUSE(H5E_ARGS, H5E_BADVALUE, "H5Fget_mpi_atomicity: flag is NULL");
        *flag = 0;
        return 0;
    }
    if (!real && !(real = (get_atom_fn)next_symbol("H5Fget_mpi_atomicity")))
        return -1;
    return real(file_id, flag);
}
