/*
 * registry.c -- the list of h5sf files this process has open.
 *
 * Owns the list only: h5sf.c adds a file at open and removes it at close;
 * the finalize hook (h5sf.c), the same-node descriptor budget (samenode.c)
 * and the public getters (stats.c) walk or search it.  Calls nothing: it
 * sits below every other file of vfd/, so none of them reaches up to
 * h5sf.c for it.  Not thread-safe, like the HDF5 calls that reach it.
 */
#include "internal.h"

static h5sf_file_t *open_files;

void h5sf_registry_add(h5sf_file_t *f)
{
    f->next    = open_files;
    open_files = f;
}

h5sf_file_t *h5sf_registry_first(void) { return open_files; }

h5sf_file_t *h5sf_registry_find(const void *f)
{
    for (h5sf_file_t *p = open_files; p; p = p->next)
        if ((const void *)p == f)
            return p;
    return NULL;
}

void h5sf_registry_remove(h5sf_file_t *f)
{
    for (h5sf_file_t **p = &open_files; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            return;
        }
}
