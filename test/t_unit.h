/*
 * t_unit.h -- what the MPI-free unit tests share: a CHECK that counts
 * failures and names the line.  Header-only; each test is one .c file.
 */
#ifndef T_UNIT_H
#define T_UNIT_H

#include <stdio.h>

static int failures;
#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            failures++;                                                                                                \
            fprintf(stderr, "FAIL line %d: ", __LINE__);                                                               \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

#endif
