/* sm_progress: h5sf's IOC traffic without h5sf or HDF5, to tell an MPI
 * progress bug from an h5sf one.
 *
 * Rank 0 runs a probe thread (MPI_Improbe/MPI_Mrecv on one tag) and worker
 * threads that receive or send a payload and then a 424-byte reply, polling
 * with MPI_Test and short sleeps, as ioc/progress.c and ioc/run.c do.  Every
 * other rank posts three requests per phase, polls the replies, and all
 * ranks meet in an MPI_Allreduce.  A phase that takes 30 s ends the run
 * with SIGALRM.  Under Open MPI 6.0.0rc2 with its sm BTL some runs stall
 * this way (the reply's eager send never completes); over btl self,tcp and
 * under Open MPI 4.1.4 none do (scripts/test-versions.sh, stage 2.x).
 *
 * usage: mpiexec -n 8 sm_progress [phases] */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define TAG_REQ 7
#define NW      4
typedef struct {
    int op, tag, src;
    int n;
} hdr_t;
static MPI_Comm        comm;
static atomic_int      stop;
static hdr_t           q[4096];
static int             qh, qt;
static pthread_mutex_t ql = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t  qc = PTHREAD_COND_INITIALIZER;
static void            backoff(unsigned *i)
{
    struct timespec ts = {0, (*i < 10 ? 1000 : 50000)};
    (*i)++;
    nanosleep(&ts, NULL);
}
static void waitreq(MPI_Request *r)
{
    int      f = 0;
    unsigned i = 0;
    while (MPI_Test(r, &f, MPI_STATUS_IGNORE) == MPI_SUCCESS && !f) {
        if (atomic_load(&stop))
            return;
        backoff(&i);
    }
}
static void *progress(void *a)
{
    unsigned idle = 0;
    while (!atomic_load(&stop)) {
        int         flag = 0;
        MPI_Message m;
        MPI_Status  st;
        MPI_Improbe(MPI_ANY_SOURCE, TAG_REQ, comm, &flag, &m, &st);
        if (flag) {
            hdr_t h;
            MPI_Mrecv(&h, sizeof h, MPI_BYTE, &m, MPI_STATUS_IGNORE);
            h.src = st.MPI_SOURCE;
            pthread_mutex_lock(&ql);
            q[qt++ % 4096] = h;
            pthread_cond_signal(&qc);
            pthread_mutex_unlock(&ql);
            idle = 0;
        }
        else
            backoff(&idle);
    }
    return a;
}
static void *worker(void *a)
{
    char *buf = malloc(1 << 20), rep[424];
    for (;;) {
        pthread_mutex_lock(&ql);
        while (qh == qt && !atomic_load(&stop))
            pthread_cond_wait(&qc, &ql);
        if (atomic_load(&stop)) {
            pthread_mutex_unlock(&ql);
            break;
        }
        hdr_t h = q[qh++ % 4096];
        pthread_mutex_unlock(&ql);
        MPI_Request r;
        if (h.op == 0) {
            MPI_Irecv(buf, h.n, MPI_BYTE, h.src, h.tag + 1, comm, &r);
            waitreq(&r);
        }
        else {
            memset(buf, 1, h.n);
            MPI_Isend(buf, h.n, MPI_BYTE, h.src, h.tag + 2, comm, &r);
            waitreq(&r);
        }
        memset(rep, 0, sizeof rep);
        MPI_Isend(rep, sizeof rep, MPI_BYTE, h.src, h.tag, comm, &r);
        waitreq(&r);
    }
    free(buf);
    return a;
}
int main(int argc, char **argv)
{
    int prov, rank, size, phases = argc > 1 ? atoi(argv[1]) : 300;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    pthread_t pt, wt[NW];
    if (rank == 0) {
        pthread_create(&pt, NULL, progress, NULL);
        for (int i = 0; i < NW; i++)
            pthread_create(&wt[i], NULL, worker, NULL);
    }
    srand(1234 + rank);
    int   tag  = 16;
    char *data = malloc(3 << 18), *rd = malloc(3 << 18);
    for (int p = 0; p < phases; p++) {
        alarm(30);
        if (rank != 0) {
            MPI_Request rr[3], hr[3], dr[3];
            char        rep[3][424];
            hdr_t       h[3];
            for (int k = 0; k < 3; k++) {
                h[k].op  = rand() & 1;
                h[k].tag = tag;
                h[k].n   = 1 + rand() % (1 << 18);
                tag += 4;
                if (tag > 30000)
                    tag = 16;
                MPI_Irecv(rep[k], 424, MPI_BYTE, 0, h[k].tag, comm, &rr[k]);
                if (h[k].op)
                    MPI_Irecv(rd + (k << 18), h[k].n, MPI_BYTE, 0, h[k].tag + 2, comm, &dr[k]);
                MPI_Isend(&h[k], sizeof h[k], MPI_BYTE, 0, TAG_REQ, comm, &hr[k]);
                if (!h[k].op)
                    MPI_Isend(data + (k << 18), h[k].n, MPI_BYTE, 0, h[k].tag + 1, comm, &dr[k]);
            }
            for (int k = 0; k < 3; k++) {
                unsigned i = 0;
                int      f = 0;
                while (MPI_Test(&rr[k], &f, MPI_STATUS_IGNORE) == MPI_SUCCESS && !f)
                    backoff(&i);
                MPI_Wait(&hr[k], MPI_STATUS_IGNORE);
                MPI_Wait(&dr[k], MPI_STATUS_IGNORE);
            }
        }
        int x = p, y;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    alarm(0);
    if (rank == 0) {
        atomic_store(&stop, 1);
        pthread_mutex_lock(&ql);
        pthread_cond_broadcast(&qc);
        pthread_mutex_unlock(&ql);
        pthread_join(pt, NULL);
        for (int i = 0; i < NW; i++)
            pthread_join(wt[i], NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("sm_progress: %d phases done\n", phases);
    MPI_Finalize();
    return 0;
}
