/*
 * t_xver -- one half of the cross-version interop check
 * (scripts/test-versions.sh runs the halves under different HDF5 versions).
 *
 * Usage: mpiexec -n N t_xver write|verify DRIVER FILE [indep]
 *   DRIVER  h5sf (plugin by name, 64 KiB x 3 subfiles when writing) or
 *           subfiling (HDF5's built-in driver; only if this HDF5 has it)
 *   write   dataset "v" of N*4096 int64, element i = t_mix(1, i) (the
 *           harness's pattern, h5sf_test.h; test/ecosystem/t_xmpi_data.sh
 *           computes the same bytes in Python), each rank its block,
 *           collectively, plus attribute "writer" = this HDF5's version
 *   verify  reads "v" (every rank all of it) and compares with the pattern;
 *           prints the writer's version
 *   indep   independent transfers (default: collective)
 * Exit status 0 only if every rank agrees; 77 if DRIVER is not available.
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

#define PER_RANK 4096

static hid_t make_fapl(const char *driver, int writing)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    if (!strcmp(driver, "h5sf")) {
        if (H5Pset_driver_by_name(fapl, "h5sf", writing ? "stripe_size=65536,stripe_count=3" : NULL) < 0)
            return H5I_INVALID_HID;
        return fapl;
    }
#if H5SF_HAVE_SUBFILING_VFD
    H5FD_subfiling_config_t cfg;
    if (H5Pget_fapl_subfiling(fapl, &cfg) < 0)
        return H5I_INVALID_HID;
    cfg.shared_cfg.stripe_size  = 65536;
    cfg.shared_cfg.stripe_count = 3;
    if (H5Pset_fapl_subfiling(fapl, &cfg) < 0)
        return H5I_INVALID_HID;
    H5Pclose(cfg.ioc_fapl_id);
    return fapl;
#else
    exit(77);
#endif
}

int main(int argc, char **argv)
{
    int      bad = 0;
    unsigned maj, min, rel;
    char     mine[32], writer[32] = "?";
    t_init(&argc, &argv, "t_xver");
    if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "indep"))) {
        fprintf(stderr, "usage: t_xver write|verify h5sf|subfiling FILE [indep]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int writing = !strcmp(argv[1], "write");
#if !H5SF_HAVE_SUBFILING_VFD
    if (!strcmp(argv[2], "subfiling")) {
        if (t_rank == 0)
            printf("t_xver: skipped: this HDF5 is built without its subfiling driver\n");
        MPI_Finalize();
        return 77;
    }
#endif
    H5get_libversion(&maj, &min, &rel);
    snprintf(mine, sizeof mine, "%u.%u.%u", maj, min, rel);
    hid_t    fapl = make_fapl(argv[2], writing);
    hsize_t  n = (hsize_t)t_size * PER_RANK, start = (hsize_t)t_rank * PER_RANK, cnt = PER_RANK;
    int64_t *buf  = malloc((size_t)n * sizeof *buf);
    hid_t    dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, argc == 5 ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE);
    if (fapl < 0 || !buf)
        bad = 1;
    else if (writing) {
        hid_t f  = H5Fcreate(argv[3], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hid_t fs = H5Screate_simple(1, &n, NULL), ms = H5Screate_simple(1, &cnt, NULL);
        hid_t d = f < 0 ? -1 : H5Dcreate2(f, "v", H5T_NATIVE_INT64, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (hsize_t i = 0; i < cnt; i++)
            buf[i] = (int64_t)t_mix(1, start + i);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL);
        hid_t as = H5Screate(H5S_SCALAR), st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, sizeof mine);
        hid_t a = d < 0 ? -1 : H5Acreate2(d, "writer", st, as, H5P_DEFAULT, H5P_DEFAULT);
        if (d < 0 || H5Dwrite(d, H5T_NATIVE_INT64, ms, fs, dxpl, buf) < 0 || a < 0 || H5Awrite(a, st, mine) < 0)
            bad = 1;
        H5Aclose(a);
        H5Sclose(as);
        H5Tclose(st);
        H5Dclose(d);
        H5Sclose(fs);
        H5Sclose(ms);
        if (f < 0 || H5Fclose(f) < 0)
            bad = 1;
    }
    else {
        hid_t f  = H5Fopen(argv[3], H5F_ACC_RDONLY, fapl);
        hid_t d  = f < 0 ? -1 : H5Dopen2(f, "v", H5P_DEFAULT);
        hid_t st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, sizeof writer);
        hid_t a = d < 0 ? -1 : H5Aopen(d, "writer", H5P_DEFAULT);
        if (d < 0 || H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, dxpl, buf) < 0 || a < 0 ||
            H5Aread(a, st, writer) < 0)
            bad = 1;
        for (hsize_t i = 0; !bad && i < n; i++)
            if (buf[i] != (int64_t)t_mix(1, i)) {
                CHECK(0, "element %llu = %lld, expected %lld", (unsigned long long)i, (long long)buf[i],
                      (long long)t_mix(1, i));
                bad = 1;
            }
        H5Aclose(a);
        H5Tclose(st);
        H5Dclose(d);
        if (f < 0 || H5Fclose(f) < 0)
            bad = 1;
    }
    if (bad)
        t_errors_print(stderr);
    CHECK(!bad, "%s %s with %s", writing ? "writing" : "reading", argv[3], argv[2]);
    if (t_rank == 0)
        printf("t_xver: %s %s with %s under HDF5 %s%s%s\n", writing ? "wrote" : "read", argv[3], argv[2], mine,
               writing ? "" : ", written under HDF5 ", writing ? "" : writer);
    free(buf);
    H5Pclose(dxpl);
    if (fapl >= 0)
        H5Pclose(fapl);
    return t_finish();
}
