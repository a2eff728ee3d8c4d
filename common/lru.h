/*
 * lru.h -- the least-recently-used order of open descriptors, for the two
 * caps on them: the IOC's subfiles (ioc/subfile.c) and the same-node
 * shortcut's (vfd/samenode.c), both H5SF_IOC_MAX_FDS.
 *
 * An intrusive list in order of use, oldest first: a use moves an entry
 * to the end in O(1), and the oldest entry that may close is found from
 * the front, where it nearly always is.  Owns only the order: the caller
 * keeps the count and the cap, closes descriptors, and serializes calls
 * (a lock, or one thread).  No HDF5, no MPI.
 */
#ifndef H5SF_LRU_H
#define H5SF_LRU_H

#include <stdbool.h>
#include <stddef.h>

/* An entry; all zero: in no list. */
typedef struct h5sf_lru_node {
    struct h5sf_lru_node *prev, *next;
} h5sf_lru_node_t;

/* The list: a ring through head. */
typedef struct h5sf_lru {
    h5sf_lru_node_t head;
} h5sf_lru_t;

#define H5SF_LRU_INIT(l)                                                                                               \
    {                                                                                                                  \
        {                                                                                                              \
            &(l).head, &(l).head                                                                                       \
        }                                                                                                              \
    }

/* The structure of type `type` whose member `member` is node n. */
#define H5SF_LRU_ENTRY(n, type, member) ((type *)(void *)((char *)(n)-offsetof(type, member)))

/* n is in a list. */
static inline bool h5sf_lru_linked(const h5sf_lru_node_t *n) { return n->next != NULL; }

/* Used now: n goes to the end, linked if it was not. */
void h5sf_lru_touch(h5sf_lru_t *l, h5sf_lru_node_t *n);

/* Out of the list (its descriptor closed); nothing if it was in none. */
void h5sf_lru_remove(h5sf_lru_node_t *n);

/* The least recently used entry that may_close accepts, still linked;
 * NULL if there is none. */
h5sf_lru_node_t *h5sf_lru_oldest(const h5sf_lru_t *l, bool (*may_close)(const h5sf_lru_node_t *n, void *arg),
                                 void             *arg);

#endif
