/* test_fieldstats: the solvers' reductions and field generator on the CPU
   against their definitions (fieldstats_check.h). */
#include "fieldstats_check.h"

int main(void)
{
    fdx_ctx *cpu = fdx_test_ctx("cpu");
    CHECK(cpu != NULL, "no CPU context: %s", fdx_last_error());
    if (!cpu) return fdx_test_finish("test_fieldstats");
    double got[4 * 64];
    int n = 0;
    fc_stats(cpu, "cpu", got, &n);
    fc_gen(cpu, "cpu", 0);
    fdx_ctx_destroy(&cpu);
    return fdx_test_finish("test_fieldstats");
}
