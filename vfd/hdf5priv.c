/*
 * hdf5priv.c -- the only place h5sf touches HDF5 beyond its public API, and
 * the HDF5 version check done when the plugin is loaded or registered.
 *
 * Two functions of HDF5's API context (H5CXprivate.h) tell a driver how the
 * current transfer was issued; HDF5 exports them from the shared library but
 * declares them only in private headers (docs/architecture.md, "Private HDF5
 * calls").  They are looked up at run time in the library that defines
 * H5open, so h5sf still loads into an HDF5 that does not export them; then
 * the transfer mode falls back to the dxpl's public setting, metadata is
 * transferred as contiguous bytes, and collective raw-data transfers fail
 * with an error naming the missing symbol.
 * Owns no other HDF5 state; must not be called before HDF5 is initialized.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

typedef herr_t (*xfer_mode_fn)(H5FD_mpio_xfer_t *);
typedef herr_t (*coll_types_fn)(MPI_Datatype *, MPI_Datatype *);

static struct {
    bool          looked;
    xfer_mode_fn  xfer_mode;
    coll_types_fn coll_types;
} priv;

/* Resolve a symbol in the HDF5 library h5sf is running with (whatever the
 * scope it was loaded in), else in the global scope. */
static void *hdf5_sym(const char *name)
{
    Dl_info info;
    void   *sym = NULL;
    if (dladdr((void *)H5open, &info) && info.dli_fname) {
        void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            sym = dlsym(h, name);
            dlclose(h);
        }
    }
    return sym ? sym : dlsym(RTLD_DEFAULT, name);
}

static void lookup(void)
{
    if (priv.looked)
        return;
    priv.looked = true;
    if (h5sf_var(H5SF_VAR_TEST_NO_PRIVATE_HDF5)) /* exercise the fallback */
        return;
    *(void **)&priv.xfer_mode  = hdf5_sym("H5CX_get_io_xfer_mode");
    *(void **)&priv.coll_types = hdf5_sym("H5CX_get_mpi_coll_datatypes");
}

bool h5sf_priv_collective(hid_t dxpl)
{
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    lookup();
    if (priv.xfer_mode) {
        if (priv.xfer_mode(&mode) < 0)
            return false;
    }
    /* Public fallback: the mode the user asked for, not the one HDF5 chose
     * for this very call (it switches to independent e.g. for metadata). */
    else if (dxpl < 0 || H5Pget_dxpl_mpio(dxpl, &mode) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    return mode == H5FD_MPIO_COLLECTIVE;
}

int h5sf_priv_coll_datatypes(H5FD_mem_t type, MPI_Datatype *btype, MPI_Datatype *ftype, h5sf_errbuf_t *e)
{
    lookup();
    /* HDF5 builds derived datatypes only for raw data (H5Dmpio.c); its
     * collective metadata writes use MPI_BYTE (H5Cmpio.c). */
    if (!priv.coll_types && type != H5FD_MEM_DRAW) {
        *btype = *ftype = MPI_BYTE;
        return 0;
    }
    if (!priv.coll_types)
        return h5sf_fail(e, 0,
                         "collective transfer: this HDF5 does not export H5CX_get_mpi_coll_datatypes, "
                         "which h5sf needs to read HDF5's MPI datatypes; use independent transfers "
                         "(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_INDEPENDENT))");
    if (priv.coll_types(btype, ftype) < 0)
        return h5sf_fail(e, 0, "cannot get the collective MPI datatypes from HDF5");
    return 0;
}

/* ---- version check ---------------------------------------------------- */
/* Tested by CI (scripts/test-versions.sh): 1.14.5 up to 2.2.x. */
#define TESTED_MIN    11405u /* 1.14.5 */
#define TESTED_MAX    20299u /* 2.2.x  */
#define VKEY(a, b, c) ((unsigned)(a)*10000u + (unsigned)(b)*100u + (unsigned)(c))

/* HDF5's version, asked once.  HDF5 calls H5PLget_plugin_info while a
 * failed open's errors are still on the stack (looking for a VOL
 * connector), and an API call clears the stack: the caller's errors are
 * put back as they were (t_pluginstack). */
static int libversion(unsigned *maj, unsigned *min, unsigned *rel)
{
    static unsigned v[3];
    static int      known;
    if (!known) {
        hid_t keep = H5Eget_num(H5E_DEFAULT) > 0 ? H5Eget_current_stack() : H5I_INVALID_HID;
        known      = H5get_libversion(&v[0], &v[1], &v[2]) < 0 ? -1 : 1;
        if (keep >= 0)
            H5Eset_current_stack(keep);
    }
    *maj = v[0], *min = v[1], *rel = v[2];
    return known > 0 ? 0 : -1;
}

int h5sf_check_hdf5_version(void)
{
    unsigned    maj = 0, min = 0, rel = 0, v;
    const char *allow = h5sf_var(H5SF_VAR_ALLOW_UNTESTED_HDF5);
    if (libversion(&maj, &min, &rel) < 0)
        return -1;
    if (allow && strcmp(allow, "0") != 0 && *allow)
        return 0;
    v = VKEY(maj, min, rel);
    if (v < TESTED_MIN || v > TESTED_MAX) {
        H5SF_PUSH(H5E_PLUGIN, H5E_BADVALUE,
                  "h5sf is tested with HDF5 1.14.5 .. 2.2.x, not with HDF5 %u.%u.%u; it uses HDF5's "
                  "private API context (docs/architecture.md) and refuses to load "
                  "(H5SF_ALLOW_UNTESTED_HDF5=1 loads it anyway, at your risk)",
                  maj, min, rel);
        return -1;
    }
    /* The driver class layout follows HDF5's major.minor: a plugin built
     * for one must not be handed to another. */
    if (maj != H5_VERS_MAJOR || min != H5_VERS_MINOR) {
        H5SF_PUSH(H5E_PLUGIN, H5E_BADVALUE,
                  "h5sf was built with HDF5 %d.%d.%d but is loaded into HDF5 %u.%u.%u: rebuild it "
                  "against this HDF5 (H5SF_ALLOW_UNTESTED_HDF5=1 loads it anyway, at your risk)",
                  H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE, maj, min, rel);
        return -1;
    }
    return 0;
}
