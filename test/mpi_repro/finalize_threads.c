/* finalize_threads: is MPI still thread-safe inside MPI_Finalize's
 * MPI_COMM_SELF attribute-delete callbacks?  No h5sf, no HDF5.
 *
 * A thread polls MPI_Improbe (as an IOC's progress thread does) while the
 * main thread, inside the callback, runs 2000 MPI_Allreduce calls (as
 * h5sf's finalize hook does when it closes files left open), then stops
 * and joins the thread.  Under Open MPI 4.1 this completes.  Under MPICH
 * 4.0.2 (ch4:ucx) the two threads progress UCX at once and one aborts
 * ("ucp_worker.c: Assertion `worker->inprogress++ == 0' failed"): MPICH
 * drops its locking once MPI_Finalize starts.  Exit status 0 when the run
 * completes.
 *
 * usage: mpiexec -n 2 finalize_threads */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int stop;
static pthread_t  poller;

static void *poll_loop(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int         flag;
        MPI_Message msg;
        MPI_Improbe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE);
    }
    return NULL;
}

static int on_self_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm, (void)keyval, (void)attr, (void)extra;
    int one = 1, sum = 0;
    for (int i = 0; i < 2000; i++)
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    atomic_store(&stop, 1);
    pthread_join(poller, NULL);
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int provided, keyval, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "finalize_threads: no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pthread_create(&poller, NULL, poll_loop, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_self_delete, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("finalize_threads: MPI calls from two threads inside MPI_Finalize's callbacks completed\n");
    return 0;
}
