/* unit_lru -- the descriptor caps' use order (common/lru.c): oldest first,
 * a use moves an entry to the end, entries that may not close are passed
 * over, removal of linked and unlinked entries, a list that starts zeroed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lru.h"
#include "h5sf_test.h"

typedef struct {
    int             id;
    bool            busy;
    h5sf_lru_node_t n;
} ent_t;

static bool idle(const h5sf_lru_node_t *n, void *arg)
{
    (void)arg;
    return !H5SF_LRU_ENTRY(n, ent_t, n)->busy;
}

/* The id of the oldest idle entry, -1 for none. */
static int oldest(const h5sf_lru_t *l)
{
    h5sf_lru_node_t *n = h5sf_lru_oldest(l, idle, NULL);
    return n ? H5SF_LRU_ENTRY(n, ent_t, n)->id : -1;
}

int main(void)
{
    t_start("unit_lru");
    h5sf_lru_t l;
    ent_t      e[64];
    memset(&l, 0, sizeof l);
    memset(e, 0, sizeof e);
    for (int i = 0; i < 64; i++)
        e[i].id = i;

    CHECK_EQ(oldest(&l), -1); /* zeroed: empty */
    h5sf_lru_remove(&e[0].n); /* in no list: nothing */
    CHECK(!h5sf_lru_linked(&e[0].n));

    for (int i = 0; i < 4; i++)
        h5sf_lru_touch(&l, &e[i].n);
    CHECK_EQ(oldest(&l), 0);
    h5sf_lru_touch(&l, &e[0].n); /* used again: now the newest */
    CHECK_EQ(oldest(&l), 1);
    e[1].busy = true;
    CHECK_EQ(oldest(&l), 2);
    h5sf_lru_remove(&e[2].n);
    CHECK(!h5sf_lru_linked(&e[2].n));
    CHECK_EQ(oldest(&l), 3);
    e[3].busy = e[0].busy = true;
    CHECK_EQ(oldest(&l), -1);
    e[1].busy = false;
    CHECK_EQ(oldest(&l), 1);

    /* Against a model: a use counter per entry, random uses and removals. */
    memset(&l, 0, sizeof l);
    memset(e, 0, sizeof e);
    uint64_t used[64] = {0}, clock = 0;
    t_rnd_seed(50);
    for (int i = 0; i < 64; i++)
        e[i].id = i;
    for (int step = 0; step < 20000; step++) {
        int i = (int)t_rnd_below(64);
        switch (t_rnd_below(4)) {
            case 0: h5sf_lru_remove(&e[i].n); break;
            case 1: e[i].busy = !e[i].busy; break;
            default:
                h5sf_lru_touch(&l, &e[i].n);
                used[i] = ++clock;
                break;
        }
        int want = -1;
        for (int k = 0; k < 64; k++)
            if (h5sf_lru_linked(&e[k].n) && !e[k].busy && (want < 0 || used[k] < used[want]))
                want = k;
        CHECK_EQ(oldest(&l), want);
    }
    return t_verdict();
}
