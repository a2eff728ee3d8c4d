/*
 * t_crossmpi -- a program of one MPI opening a file with the h5sf driver
 * found through HDF5_PLUGIN_PATH, which may hold the plugin built for the
 * other MPI (test/ecosystem/t_crossmpi.sh).
 *
 * Usage: t_crossmpi h5sf|sec2 FILE [preinit]
 *   h5sf     select the driver by name (the plugin is loaded here), then
 *            create FILE and close it;
 *   sec2     the default driver (a control: the program and its MPI work);
 *   preinit  load the driver before MPI_Init, as a serial tool does.
 * Prints HDF5's error stack on stdout (one record a line) and exits 1
 * if the driver or the file could not be set up, 0 otherwise.  Built by
 * ctest with this build's MPI and by t_crossmpi.sh with the other one's,
 * so it uses nothing of h5sf (h5sf_test.h is found beside this file).
 */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include <hdf5.h>
#include "h5sf_test.h"

static int fail(const char *what)
{
    static t_errtext_t t;
    printf("%s failed; HDF5 error stack:\n%s", what, t_errors(&t));
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    int   rc = 0, rank = 0;
    hid_t fapl, file   = H5I_INVALID_HID;
    if (argc < 3 || (strcmp(argv[1], "h5sf") && strcmp(argv[1], "sec2"))) {
        fprintf(stderr, "usage: t_crossmpi h5sf|sec2 FILE [preinit]\n");
        return 2;
    }
    const int by_name = !strcmp(argv[1], "h5sf");
    const int preinit = argc > 3 && !strcmp(argv[3], "preinit");
    herr_t    st      = 0;

    /* Its own MPI_Init, before or after the driver loads: the order is what
     * is tested, and t_init's would start HDF5 first. */
    if (!preinit)
        MPI_Init(&argc, &argv);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (by_name) {
        H5E_BEGIN_TRY { st = H5Pset_driver_by_name(fapl, "h5sf", NULL); }
        H5E_END_TRY
        if (st < 0)
            rc = fail("H5Pset_driver_by_name(\"h5sf\")");
    }
    if (preinit)
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc == 0) {
        if (by_name)
            H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        /* One rank writes with the serial driver. */
        if (by_name || rank == 0) {
            H5E_BEGIN_TRY { file = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, fapl); }
            H5E_END_TRY
            if (file < 0)
                rc = fail("H5Fcreate");
            else if (H5Fclose(file) < 0)
                rc = fail("H5Fclose");
        }
    }
    H5Pclose(fapl);
    if (rc == 0 && rank == 0)
        printf("t_crossmpi: %s file %s created\n", argv[1], argv[2]);
    MPI_Finalize();
    return rc;
}
