/* vnni-prep.h - the scalar ends every vectorized VNNI prepare (vnni-avx2.c,
 * vnni-avx512vnni.c) shares with mp_q8act_fill, so that their bytes are the
 * reference's: the absmax from the vector lanes' maxima and the elements the
 * vectors left, floored; then the quantization of those elements, the header
 * and the zero padding. */
#ifndef MP_VNNI_PREP_H
#define MP_VNNI_PREP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../common/mp_numerics.h"

/* max(lanes[0..nl), |xt[i..k)|), at least MP_ABSMAX_FLOOR (NaN skipped: `>`) */
static inline float mp_vnni_prep_absmax(const float *lanes, int nl, const float *xt, int i, int k)
{
    float absmax = 0.0f;
    for (int j = 0; j < nl; j++)
        absmax = lanes[j] > absmax ? lanes[j] : absmax;
    for (; i < k; i++) {
        float a = fabsf(xt[i]);
        if (a > absmax)
            absmax = a;
    }
    if (!(absmax >= MP_ABSMAX_FLOOR))
        absmax = MP_ABSMAX_FLOOR;
    return absmax;
}

/* q[i..k) from xt (rounded to nearest even, clamped to +-127), their sum added
 * to s; then the header and the zeros up to the stride */
static inline void mp_vnni_prep_finish(const float *xt, int i, int k, float scale, int32_t s,
                                       int8_t *q, mp_q8hdr *h, size_t stride)
{
    for (; i < k; i++) {
        float f = nearbyintf(xt[i] * scale);
        if (f > 127.0f)
            f = 127.0f;
        if (f < -127.0f)
            f = -127.0f;
        q[i] = (int8_t)f;
        s += q[i];
    }
    h->x_scale = scale;
    h->qsum = s;
    memset(q + k, 0, stride - 64 - (size_t)k);
}

#endif
