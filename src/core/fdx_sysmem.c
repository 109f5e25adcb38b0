/* fdx_sysmem: how much host memory this process can still take, the one
   answer every up-front memory check uses (runs, CLI commands, readers). */
#include "fdx/core.h"

#include <stdio.h>
#include <unistd.h>

/* MemAvailable from /proc/meminfo (free pages where it is missing), lowered
   to a cgroup v2 limit (memory.max - memory.current) when one is set, as in
   containers. */
double fdx_host_memory_available(const char **what)
{
    const char *src = "free memory";
    double avail = -1;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                avail = (double)kb * 1024;
                src = "MemAvailable";
            }
        fclose(f);
    }
    if (avail < 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
        avail = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    }
    f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f) {
        unsigned long long max, cur;
        if (fscanf(f, "%llu", &max) == 1) {
            FILE *g = fopen("/sys/fs/cgroup/memory.current", "r");
            if (g && fscanf(g, "%llu", &cur) == 1 && max > cur && (double)(max - cur) < avail) {
                avail = (double)(max - cur);
                src = "the cgroup's memory.max";
            }
            if (g) fclose(g);
        }
        fclose(f);
    }
    if (what) *what = src;
    return avail;
}
