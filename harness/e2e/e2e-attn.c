/* e2e-attn.c - the attention loops' portable copy (harness/e2e-attn-simd.h)
 * and the choice of a copy for this CPU (mp_e2e_attn.h). */
#include <string.h>

#include "mp_e2e_attn.h"
#include "../../kernels/common/mp_isa.h"
#include "../../kernels/mp_kernel.h"

#define MP_ATTN_FN(name) name##__generic
#include "e2e-attn-simd.h"
#undef MP_ATTN_FN

#define MP_ATTN_DECLARE_(sfx)                                                             \
    void mp_e2e_attn_scores__##sfx(const float *, const float *, int, int, float, float *); \
    void mp_e2e_attn_mix__##sfx(const float *, const float *, int, int, float *);          \
    float mp_e2e_attn_softmax__##sfx(float *, int);
#define MP_ATTN_COPY_(sfx, bits)                                                          \
    {#sfx, bits, mp_e2e_attn_scores__##sfx, mp_e2e_attn_mix__##sfx,                       \
     mp_e2e_attn_softmax__##sfx}

#if defined(__x86_64__)
MP_ATTN_DECLARE_(avx512)
MP_ATTN_DECLARE_(avx2)
#endif

/* widest first; the last one runs anywhere */
static const mp_e2e_attn_copy copies[] = {
#if defined(__x86_64__)
    MP_ATTN_COPY_(avx512, MP_ISA_AVX512),
    MP_ATTN_COPY_(avx2, MP_ISA_AVX2),
#endif
    MP_ATTN_COPY_(generic, 0),
};
enum { NCOPIES = sizeof copies / sizeof copies[0] };

static int chosen = NCOPIES - 1;

void mp_e2e_attn_init(void)
{
    unsigned isa = mp_isa_detect(); /* every build has it (kernels/common/isa.c) */
    for (int i = 0; i < NCOPIES; i++)
        if ((copies[i].isa & isa) == copies[i].isa) {
            chosen = i;
            return;
        }
}

const mp_e2e_attn_copy *mp_e2e_attn(void)
{
    return &copies[chosen];
}

const mp_e2e_attn_copy *mp_e2e_attn_isa(const char *name)
{
    unsigned isa = mp_isa_detect(); /* every build has it (kernels/common/isa.c) */
    for (int i = 0; i < NCOPIES; i++)
        if (!strcmp(copies[i].name, name))
            return (copies[i].isa & isa) == copies[i].isa ? &copies[i] : NULL;
    return NULL;
}
