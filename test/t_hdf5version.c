/*
 * t_hdf5version -- the plugin refuses an HDF5 outside its tested range.
 *
 * Usage: t_hdf5version refuse|load
 *   refuse  loading "h5sf" by name must fail, and HDF5's error stack must
 *           carry h5sf's message naming the tested range "1.14.5 .. 2.2.x"
 *           and the reported version ($H5SF_FAKE_HDF5_VERSION, faked by
 *           LD_PRELOAD=libfake_libversion.so);
 *   load    loading must succeed (the real version, or the override
 *           H5SF_ALLOW_UNTESTED_HDF5=1).
 * The expected text is written here, not taken from the plugin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <hdf5.h>
#include "h5sf_test.h"

int main(int argc, char **argv)
{
    static t_errtext_t t;
    const char        *found = t.desc;
    t_init_level(&argc, &argv, "t_hdf5version", MPI_THREAD_SINGLE); /* no threads: MPI_Init's level */
    if (argc != 2 || (strcmp(argv[1], "refuse") && strcmp(argv[1], "load"))) {
        fprintf(stderr, "usage: t_hdf5version refuse|load\n");
        MPI_Finalize();
        return 2;
    }
    bool   refuse = !strcmp(argv[1], "refuse");
    hid_t  fapl   = H5Pcreate(H5P_FILE_ACCESS);
    herr_t st;
    H5E_BEGIN_TRY { st = H5Pset_driver_by_name(fapl, "h5sf", NULL); }
    H5E_END_TRY
    if (st < 0)
        t_errors(&t);
    H5Pclose(fapl);
    if (!refuse) {
        CHECK(st >= 0, "the plugin did not load:\n%s", found);
        return t_finish();
    }
    const char *fake = getenv("H5SF_FAKE_HDF5_VERSION");
    char        want[64];
    snprintf(want, sizeof want, "not with HDF5 %s", fake ? fake : "?");
    CHECK(st < 0, "the plugin loaded into HDF5 %s", fake ? fake : "?");
    if (st < 0) {
        CHECK(strstr(found, "tested with HDF5 1.14.5 .. 2.2.x") && strstr(found, want),
              "no version error naming the range and '%s' in the stack:\n%s", want, found);
        printf("refused with:\n%s", found);
    }
    return t_finish();
}
