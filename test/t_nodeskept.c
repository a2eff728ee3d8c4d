/*
 * t_nodeskept.c -- the nodes of a communicator's group are found once and
 * kept for the next open on the same group (vfd/topology.c).
 *
 * MPI_Comm_split_type is counted here (this program's definition wraps
 * PMPI's, so h5sf's calls come through it).  Three creates on duplicates
 * of MPI_COMM_WORLD: the first finds the nodes, the next two split
 * nothing.  Then a create on the even and odd halves (a new group each):
 * found again.  Every file round-trips a pattern.  The direct channel: an IOC
 * context splits the communicator too, once per context.
 *
 *   kept    as above.
 *   forget  H5SF_FAULT="op=topo-forget,rank=<last>,after=1,count=1": the last
 *           rank forgets the group at the second create: every rank must
 *           then find the nodes again (none may use its kept copy while
 *           one rank is in the split: that would hang; the watchdog turns
 *           a hang into a failure), and the third create splits nothing.
 *
 * usage: mpiexec -n N t_nodeskept DIR kept|forget
 */
#include <mpi.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include "h5sf.h"
#include "h5sf_test.h"

static int splits;

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    splits++;
    return PMPI_Comm_split_type(comm, type, key, info, out);
}

/* Create, round-trip and close a file on comm; the splits it made. */
static int create_on(MPI_Comm comm, const char *dir, const char *name)
{
    char path[4096];
    int  before = splits;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, comm, MPI_INFO_NULL);
    CHECK(H5Pset_driver_by_name(fapl, "h5sf", "channel=direct,stripe_size=4096,stripe_count=2") >= 0,
          "cannot select h5sf");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "%s: create failed", name);
    if (f >= 0) {
        t_small_roundtrip(f, 4096 * 2);
        CHECK(H5Fclose(f) >= 0, "%s: close failed", name);
    }
    H5Pclose(fapl);
    return splits - before;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_nodeskept");
    if (argc != 3)
        MPI_Abort(MPI_COMM_WORLD, 2);
    const int forget = !strcmp(argv[2], "forget");
    t_step(60, "the creates"); /* a hang is the defect */
    if (t_rank == 0)
        t_fresh_dir(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(H5FD_h5sf_init() >= 0, "cannot register h5sf");

    int first  = create_on(MPI_COMM_WORLD, argv[1], "a.h5");
    int second = create_on(MPI_COMM_WORLD, argv[1], "b.h5");
    int third  = create_on(MPI_COMM_WORLD, argv[1], "c.h5");
    printf("t_nodeskept rank %d: MPI_Comm_split_type calls in three creates on MPI_COMM_WORLD: %d, %d, %d\n", t_rank,
           first, second, third);
    CHECK(first > 0, "the first create found no nodes (%d splits)", first);
    if (forget)
        CHECK(second > 0, "one rank forgot the nodes, yet rank %d used its kept copy", t_rank);
    else
        CHECK_EQ(second, 0);
    CHECK_EQ(third, 0);

    /* The halves are new groups; with one rank the half is the world. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half);
    int halves = create_on(half, argv[1], t_rank % 2 ? "odd.h5" : "even.h5");
    if (t_size > 1)
        CHECK(halves > 0, "a create on a new group split nothing");
    else
        CHECK_EQ(halves, 0);
    MPI_Comm_free(&half);
    return t_finish();
}
