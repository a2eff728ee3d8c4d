/*
 * t_tools_builtin -- read a subfiled file with HDF5's built-in subfiling
 * driver (not h5sf) and compare every dataset and attribute with a plain
 * reference file read with sec2.
 *
 *   mpiexec -n N t_tools_builtin SUBFILED.h5 REFERENCE.h5
 *
 * Checks that files made or moved by the tools (h5sf-split, h5sf-mv) are
 * readable by the other implementation.  The walk goes over the reference,
 * so an object missing from SUBFILED.h5 fails; at least one dataset must be
 * compared.  Exit status 0 when everything matches, 1 otherwise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <hdf5.h>
#if H5SF_HAVE_SUBFILING_VFD
#include <H5FDsubfiling.h>
#endif
#include "h5sf_test.h"

static int   datasets, attributes;
static hid_t subfiled;

/* Read all of obj (dataset or attribute) as its native type. */
static void *read_all(hid_t obj, bool is_attr, size_t *bytes)
{
    hid_t  ft = is_attr ? H5Aget_type(obj) : H5Dget_type(obj);
    hid_t  sp = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
    hid_t  mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
    size_t n  = (size_t)H5Sget_simple_extent_npoints(sp) * H5Tget_size(mt);
    void  *b  = calloc(n ? n : 1, 1);
    herr_t r  = is_attr ? H5Aread(obj, mt, b) : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, b);
    H5Tclose(mt);
    H5Sclose(sp);
    H5Tclose(ft);
    if (r < 0) {
        free(b);
        return NULL;
    }
    *bytes = n;
    return b;
}

static void compare(hid_t a, hid_t b, bool is_attr, const char *name)
{
    size_t na = 0, nb = 0;
    hid_t  ta = is_attr ? H5Aget_type(a) : H5Dget_type(a), tb = is_attr ? H5Aget_type(b) : H5Dget_type(b);
    CHECK(H5Tequal(ta, tb) > 0, "%s: datatypes differ", name);
    H5Tclose(ta);
    H5Tclose(tb);
    void *x = read_all(a, is_attr, &na), *y = read_all(b, is_attr, &nb);
    CHECK(x && y, "%s: cannot read", name);
    if (x && y)
        CHECK(na == nb && memcmp(x, y, na) == 0, "%s: values differ", name);
    free(x);
    free(y);
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *op)
{
    (void)info;
    const char *obj = op;
    char        full[1024];
    snprintf(full, sizeof full, "%s@%s", obj, name);
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT), b = H5Aopen_by_name(subfiled, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && b >= 0, "%s: attribute missing", full);
    if (a >= 0 && b >= 0) {
        compare(b, a, true, full);
        attributes++;
    }
    if (a >= 0)
        H5Aclose(a);
    if (b >= 0)
        H5Aclose(b);
    return 0;
}

static herr_t visit_cb(hid_t ref, const char *name, const H5O_info2_t *info, void *op)
{
    (void)op;
    H5Aiterate_by_name(ref, name, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, attr_cb, (void *)name, H5P_DEFAULT);
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    hid_t a = H5Dopen2(ref, name, H5P_DEFAULT), b = H5Dopen2(subfiled, name, H5P_DEFAULT);
    CHECK(b >= 0, "%s: dataset missing", name);
    if (b >= 0) {
        compare(b, a, false, name);
        datasets++;
    }
    H5Dclose(a);
    if (b >= 0)
        H5Dclose(b);
    return 0;
}

int main(int argc, char **argv)
{
    t_init_multiple(&argc, &argv, "t_tools_builtin"); /* the built-in driver needs it */
    if (argc != 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_tools_builtin SUBFILED.h5 REFERENCE.h5\n");
        MPI_Finalize();
        return 2;
    }
#if !H5SF_HAVE_SUBFILING_VFD
    if (t_rank == 0)
        printf("t_tools_builtin: skipped: this HDF5 is built without its subfiling driver\n");
    MPI_Finalize();
    return 77;
#else
    /* The built-in driver, with its defaults (stripe settings come from the file). */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5FD_subfiling_config_t cfg;
    VRFY(H5Pget_fapl_subfiling(fapl, &cfg) >= 0 && H5Pset_fapl_subfiling(fapl, &cfg) >= 0,
         "cannot set up the built-in subfiling driver");
    H5Pclose(cfg.ioc_fapl_id);
    subfiled  = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    hid_t ref = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    VRFY(subfiled >= 0 && ref >= 0, "%s: cannot open", subfiled < 0 ? argv[1] : argv[2]);
    H5Ovisit3(ref, H5_INDEX_NAME, H5_ITER_NATIVE, visit_cb, NULL, H5O_INFO_BASIC);
    CHECK(datasets > 0, "%s: no dataset compared", argv[2]);
    H5Fclose(ref);
    CHECK(H5Fclose(subfiled) >= 0, "%s: close failed", argv[1]);
    H5Pclose(fapl);
    if (t_rank == 0)
        printf("t_tools_builtin: %s: %d datasets, %d attributes read with the built-in driver\n", argv[1], datasets,
               attributes);
    return t_finish();
#endif
}
