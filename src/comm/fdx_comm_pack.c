/* fdx_comm_pack: the CPU version of the strided box copy that packs shadow
   faces into dense buffers and unpacks them. */
#include "comm/fdx_comm_dev.h"

#include <string.h>

void fdx_comm_box_copy_cpu(const fdx_box_copy *c)
{
    /* Rows along the fastest axis are contiguous on both sides: one memcpy
       per row. */
    size_t row = (size_t)c->box[0] * c->elem;
#pragma omp parallel for collapse(2) if (c->box[1] * c->box[2] > 64)
    for (int64_t k = 0; k < c->box[2]; k++)
        for (int64_t j = 0; j < c->box[1]; j++) {
            int64_t s = c->slo[0] + c->sn[0] * ((c->slo[1] + j) + c->sn[1] * (c->slo[2] + k));
            int64_t d = c->dlo[0] + c->dn[0] * ((c->dlo[1] + j) + c->dn[1] * (c->dlo[2] + k));
            memcpy((char *)c->dst + (size_t)d * c->elem, (const char *)c->src + (size_t)s * c->elem, row);
        }
}
