/* fdx_layout_plan_cache: a process-wide table of the last PLAN_CACHE_ENTRIES
   transform plans, keyed by everything a plan depends on (the caller's key
   bytes: layouts, shape, element size, alignment, and the FDX_LAYOUT_*
   knobs).  Why: planning runs on the host inside every call, and for small
   arrays it is a large part of the call (the sub-word gather plans count
   their bank conflicts on the host: ~13 us a call on the H100 machine's
   host, session 11, where a 4 MiB gather transpose takes 17 us with the
   cache and 30 us without), while peers such as LibreTT plan once
   into a plan object and time only its execution.  A hit costs one pass
   over the environment (fdx_knob_snapshot: one getenv a knob, as a first
   version did, cost more than a whole plan of the vector tile, ~0.7 us
   here, and measured 5-10% slower than planning on 1-16 MiB vector-tile
   transposes on the H100, session 11), a memcmp and a copy under a mutex.
   FDX_LAYOUT_PLAN_CACHE=0 plans every call (the A/B). */
#include "layout/fdx_layout_plan_cache.h"
#include "core/fdx_knob.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { PLAN_CACHE_ENTRIES = 16 };

typedef struct entry {
    void *key, *val; /* one allocation: key bytes, then value bytes */
    size_t klen, vlen;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry table[PLAN_CACHE_ENTRIES]; /* most recently used first */
static int used;

int fdx_layout_plan_knobs(char *buf, size_t n)
{
    if (!fdx_knob_snapshot("FDX_LAYOUT_", buf, n)) return 0;
    /* FDX_LAYOUT_PLAN_CACHE=0 among the lines (not another knob lookup: it
       would scan the environment again) */
    static const char off[] = "FDX_LAYOUT_PLAN_CACHE=0\n";
    for (const char *l = buf; *l; l = strchr(l, '\n') + 1)
        if (strncmp(l, off, sizeof off - 1) == 0) return 0;
    return 1;
}

/* Moves entry i to the front (the table's order is its age). */
static void to_front(int i)
{
    entry e = table[i];
    memmove(&table[1], &table[0], sizeof table[0] * (size_t)i);
    table[0] = e;
}

int fdx_layout_plan_cache_find(const void *key, size_t klen, void *val, size_t vlen)
{
    int hit = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < used && !hit; i++)
        if (table[i].klen == klen && table[i].vlen == vlen && memcmp(table[i].key, key, klen) == 0) {
            memcpy(val, table[i].val, vlen);
            to_front(i);
            hit = 1;
        }
    pthread_mutex_unlock(&lock);
    return hit;
}

void fdx_layout_plan_cache_put(const void *key, size_t klen, const void *val, size_t vlen)
{
    unsigned char *mem = malloc(klen + vlen);
    if (!mem) return;
    memcpy(mem, key, klen);
    memcpy(mem + klen, val, vlen);
    pthread_mutex_lock(&lock);
    if (used == PLAN_CACHE_ENTRIES) free(table[--used].key); /* the oldest goes */
    table[used++] = (entry){mem, mem + klen, klen, vlen};
    to_front(used - 1);
    pthread_mutex_unlock(&lock);
}
