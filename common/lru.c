/*
 * lru.c -- the descriptor caps' use order (lru.h).
 *
 * Invariant: a node is linked (next != NULL) exactly while it is in the
 * ring through l->head, and the ring runs from the least recently used
 * entry (head.next) to the most recent (head.prev); a list never linked
 * (all zero, as calloc leaves it) is empty.
 */
#include "lru.h"

void h5sf_lru_remove(h5sf_lru_node_t *n)
{
    if (!h5sf_lru_linked(n))
        return;
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = NULL;
}

void h5sf_lru_touch(h5sf_lru_t *l, h5sf_lru_node_t *n)
{
    h5sf_lru_remove(n);
    if (!l->head.next)
        l->head.prev = l->head.next = &l->head;
    n->prev            = l->head.prev;
    n->next            = &l->head;
    l->head.prev->next = n;
    l->head.prev       = n;
}

h5sf_lru_node_t *h5sf_lru_oldest(const h5sf_lru_t *l, bool (*may_close)(const h5sf_lru_node_t *n, void *arg), void *arg)
{
    for (h5sf_lru_node_t *n = l->head.next; n && n != &l->head; n = n->next)
        if (may_close(n, arg))
            return n;
    return NULL;
}
