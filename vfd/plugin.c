/*
 * plugin.c -- what HDF5's plugin loader looks for.
 *
 * HDF5 dlopen()s libh5sf.so from HDF5_PLUGIN_PATH when a program names the
 * "h5sf" driver (H5Pset_driver_by_name, HDF5_DRIVER=h5sf, --vfd-name=h5sf).
 *
 * HDF5 dlclose()s plugins when the library shuts down, which may happen
 * before MPI_Finalize runs our MPI_COMM_SELF hook or our atexit handler.
 * Code they point to must stay mapped, so the library pins itself
 * (RTLD_NODELETE) the first time HDF5 asks for it.
 *
 * h5sf_register() gives the driver's id to the public API (fapl.c), the
 * same id whether the plugin loader or the program registered it first.
 * An HDF5 outside the tested range gets no class: HDF5 then reports
 * "can't get VFD info from plugin" under h5sf's error naming the range
 * (hdf5priv.c).
 *
 * Nor does a process whose MPI is of another family than the one the plugin
 * was built for (Open MPI vs MPICH and its derivatives): mpi_check() below,
 * the first MPI call the plugin makes.
 */

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <H5PLextern.h>
#include "internal.h"

/* ---- the MPI check ----------------------------------------------------- */
/* Open MPI and MPICH differ in ABI (handles, constants, MPI_Status), and
 * both load into one process when an HDF5 built with one MPI loads a plugin
 * built with the other: HDF5 opens plugins RTLD_LOCAL, so the plugin's MPI
 * calls bind to the MPI loaded first, the program's, and receive handles of
 * the other MPI -- a crash or a hang.  MPI_Get_library_version is the one
 * call that is safe either way: MPI allows it before MPI_Init, it takes a
 * plain buffer, and it names the library that answers. */
#if defined(OMPI_MAJOR_VERSION)
#define BUILT_FAMILY "openmpi"
#elif defined(MPICH_VERSION) /* also Intel MPI, MVAPICH, Cray MPICH */
#define BUILT_FAMILY "mpich"
#endif

#ifdef BUILT_FAMILY
/* The MPI family named by a library version string, or NULL. */
static const char *family_of(const char *ver)
{
    if (strstr(ver, "Open MPI"))
        return "openmpi";
    if (strstr(ver, "MPICH") || strstr(ver, "MVAPICH") || strstr(ver, "Intel(R) MPI"))
        return "mpich";
    return NULL;
}

static const char *family_label(const char *family) { return !strcmp(family, "openmpi") ? "Open MPI" : "MPICH"; }

/* "Open MPI 4.1.4", "MPICH 4.0.2", else the first line of the string. */
static void describe_running(const char *ver, char *out, size_t n)
{
    const char *v;
    if ((v = strstr(ver, "Open MPI v")))
        snprintf(out, n, "Open MPI %.*s", (int)strcspn(v + 10, ", \n"), v + 10);
    else if ((v = strstr(ver, "MPICH Version:"))) {
        v += strlen("MPICH Version:");
        v += strspn(v, " \t");
        snprintf(out, n, "MPICH %.*s", (int)strcspn(v, " \t\n"), v);
    }
    else
        snprintf(out, n, "%.*s", (int)strcspn(ver, "\n"), ver);
}

static void describe_built(char *out, size_t n)
{
#if defined(OMPI_MAJOR_VERSION)
    snprintf(out, n, "Open MPI %d.%d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION);
#else
    snprintf(out, n, "MPICH %s", MPICH_VERSION);
#endif
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Compare the MPI this file was compiled for with the one the process runs.
 * Returns 0 (same family, or the running one unknown), else fills msg and
 * returns -1.  The library names come from the loader: the process's MPI is
 * where MPI_Get_library_version binds for us; ours is where it binds in our
 * own dependencies (dlsym on our handle searches only those). */
static int mpi_compare(char *msg, size_t n)
{
    static char ver[1 << 15]; /* the other MPI's maximum may exceed ours (MPICH: 8192) */
    int         len = 0;
    const char *running;
    Dl_info     self, lib;
    char        built_name[64], running_name[128], built_lib[128] = "?", running_lib[128] = "?";
    char        hint[PATH_MAX + 64];

    if (MPI_Get_library_version(ver, &len) != MPI_SUCCESS)
        return 0;
    ver[sizeof ver - 1] = '\0';
    if (!(running = family_of(ver)) || !strcmp(running, BUILT_FAMILY))
        return 0;

    describe_built(built_name, sizeof built_name);
    describe_running(ver, running_name, sizeof running_name);
    if (dladdr((void *)MPI_Get_library_version, &lib) && lib.dli_fname)
        snprintf(running_lib, sizeof running_lib, "%s", base_name(lib.dli_fname));
    snprintf(hint, sizeof hint, "<libdir>/h5sf/%s of an h5sf install", running);
    if (dladdr((void *)mpi_compare, &self) && self.dli_fname) {
        void *h   = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        void *own = h ? dlsym(h, "MPI_Get_library_version") : NULL;
        if (own && dladdr(own, &lib) && lib.dli_fname)
            snprintf(built_lib, sizeof built_lib, "%s", base_name(lib.dli_fname));
        if (h)
            dlclose(h);
        /* Installed as <libdir>/h5sf/<family>/libh5sf.so: name the sibling. */
        char  dir[PATH_MAX], sibling[PATH_MAX + 16];
        char *slash = realpath(self.dli_fname, dir) ? strrchr(dir, '/') : NULL;
        int   dn    = slash ? (int)(slash - dir) : -1;
        if (slash)
            *slash = '\0';
        if (dn > 0 && (size_t)dn < sizeof dir && !strcmp(base_name(dir), BUILT_FAMILY)) {
            dir[dn - strlen(BUILT_FAMILY)] = '\0';
            snprintf(sibling, sizeof sibling, "%s%s", dir, running);
            if (access(sibling, F_OK) == 0)
                snprintf(hint, sizeof hint, "HDF5_PLUGIN_PATH=%s", sibling);
        }
    }
    snprintf(msg, n,
             "h5sf plugin built for %s (%s) is loaded into a process using %s (%s): use the h5sf plugin "
             "built for %s (%s)",
             built_name, built_lib, running_name, running_lib, family_label(running), hint);
    return -1;
}
#else /* an MPI of neither family: nothing to compare */
static int mpi_compare(char *msg, size_t n)
{
    (void)msg, (void)n;
    return 0;
}
#endif

/* 0 if the process's MPI is the plugin's, else pushes the error and
 * returns -1.  Decided once; the error is pushed on every attempt, as each
 * HDF5 call starts with an empty stack. */
static int mpi_check(void)
{
    static int  state; /* 0: not yet, 1: same MPI, -1: the other one */
    static char msg[2 * PATH_MAX + 512];
    if (state == 0)
        state = mpi_compare(msg, sizeof msg) < 0 ? -1 : 1;
    if (state < 0) {
        H5SF_PUSH(H5E_PLUGIN, H5E_BADVALUE, "%s", msg);
        return -1;
    }
    return 0;
}

static void pin_self(void)
{
    static bool pinned;
    Dl_info     info;
    if (pinned)
        return;
    pinned = true;
    if (dladdr((void *)pin_self, &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE | RTLD_NOLOAD);
}

H5SF_API H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_VFD; }
H5SF_API const void *H5PLget_plugin_info(void)
{
    if (mpi_check() < 0 || h5sf_check_hdf5_version() < 0)
        return NULL;
    pin_self();
    return &h5sf_class;
}

hid_t h5sf_register(void)
{
    if (h5sf_id >= 0 && H5Iis_valid(h5sf_id) > 0)
        return h5sf_id;
    if (mpi_check() < 0 || h5sf_check_hdf5_version() < 0)
        return H5I_INVALID_HID;
    if (H5FDis_driver_registered_by_value(H5FD_H5SF_VALUE) > 0) {
        /* Already registered by HDF5's plugin loader: fetch its id. */
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (fapl >= 0 && H5Pset_driver_by_value(fapl, H5FD_H5SF_VALUE, NULL) >= 0)
            h5sf_id = H5Pget_driver(fapl);
        H5Pclose(fapl);
        /* The fapl held a reference; the id stays valid while registered. */
    }
    else
        h5sf_id = H5FDregister(&h5sf_class);
    return h5sf_id;
}
