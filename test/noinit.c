/*
 * noinit.c -- preloaded into a serial program that must run without MPI
 * (h5dump through h5sf, test/t_tools.sh): MPI_Init and MPI_Init_thread say
 * they were called and exit with status 86 instead of starting MPI.
 */
#include <stdio.h>
#include <stdlib.h>

static int called(const char *fn)
{
    fprintf(stderr, "noinit: %s called in a serial program\n", fn);
    fflush(stderr);
    _Exit(86);
}

int MPI_Init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return called("MPI_Init");
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc, (void)argv, (void)required, (void)provided;
    return called("MPI_Init_thread");
}
