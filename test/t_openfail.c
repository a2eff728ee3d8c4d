/*
 * t_openfail.c -- an allocation that fails on one rank only while h5sf opens
 * a file: every rank's open fails, with the reason, and none is left waiting
 * in a collective the others never reach.
 *
 * ctest sets H5SF_FAULT="op=<site>,rank=<r>,count=1": the site's allocation
 * fails once, on rank r alone (sites: nomem-topo, choosing the IOCs;
 * nomem-plan, the stripe plan; nomem-ctx, a new IOC context; nomem-chan,
 * the channel tables).  The first H5Fcreate must fail on every
 * rank naming the allocation; the second, with the fault spent, must
 * succeed and round-trip a pattern.  The watchdog turns a hang into a failure.
 *
 * usage: t_openfail DIR
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "h5sf.h"
#include "h5sf_test.h"

int main(int argc, char **argv)
{
    char               path[4096];
    static t_errtext_t t;
    const char        *msg = t.desc;
    t_init(&argc, &argv, "t_openfail");
    if (argc != 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    t_step(60, "the opens"); /* a hang is the defect */
    /* No file of an earlier run: HDF5's probe open of it (whose failure
     * HDF5 ignores) would take the one injected fault. */
    if (t_rank == 0)
        t_fresh_dir(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/openfail.h5", argv[1]);
    CHECK(H5FD_h5sf_init() >= 0, "cannot register h5sf");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_driver_by_name(fapl, "h5sf", "stripe_size=4096,stripe_count=3");

    hid_t f;
    H5E_BEGIN_TRY { f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl); }
    H5E_END_TRY
    CHECK(f < 0, "the open succeeded although an allocation failed (%s)", getenv("H5SF_FAULT"));
    if (f >= 0)
        H5Fclose(f);
    else {
        /* The reason, on every rank (the failing rank's, agreed). */
        t_errors(&t);
        CHECK(strstr(msg, "out of memory") != NULL, "the error does not name the allocation: \"%s\"", msg);
        /* The fault is spent (count=1): this one must work. */
        f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    }
    CHECK(f >= 0, "the open after the failed one failed too");
    if (f >= 0) {
        t_small_roundtrip(f, 4096 * 3);
        CHECK(H5Fclose(f) >= 0, "close");
    }
    H5Pclose(fapl);
    int all = t_verdict();
    MPI_Finalize();
    return all;
}
