/* vlut-gemv.h - the scaffolding around the x86 Vec-LUT GEMV paths (small N):
 * the rows of a range's tail block, the dequantizing store of a row block and
 * the choice between table path and GEMV.  A template like vlut-simd.h: included
 * after it by vlut-avx2.c and vlut-avx512.c, each of which defines its own
 * FN(gemv) (the hot loops differ: AVX2 lays the activations out per lane in
 * scratch, AVX-512 permutes them with vpermt2w).  Nothing here is in a hot loop;
 * it runs once per block of rows. */
#ifndef FN
#error "vlut-gemv.h is a template: define FN, VL and include vlut-simd.h first"
#endif

/* Adds to rowsum[t * rs + r - r0] the sums of rows [r0, r1) for tokens
 * [t0, t0 + nn), all K tiles: portable arithmetic, for a block of fewer rows
 * than the SIMD GEMV takes. */
static inline void FN(gv_tail_rows)(const mp_vlut_geom *gm, const uint8_t *w, int m,
                                    const mp_vlut_act *A, int t0, int nn, int r0, int r1,
                                    int32_t *rowsum, int rs)
{
    for (int ti = 0; ti < gm->ntiles; ti++) {
        int f, cnt, g;
        mp_vlut_tile(gm, ti, &f, &cnt, &g);
        for (int r = r0; r < r1; r++) {
            const uint8_t *wb = w + (size_t)m * f + (size_t)r * cnt;
            for (int t = 0; t < nn; t++) {
                const int8_t *qa = A->q + (size_t)(t0 + t) * A->kp + mp_vlut_group_k(gm, f);
                int32_t s = 0;
                for (int j = 0; j < cnt; j++, qa += g)
                    for (int p = g - 1, idx = wb[j]; p >= 0; p--, idx /= 3)
                        s += (idx % 3) * qa[p];
                rowsum[(size_t)t * rs + r - r0] += s;
            }
        }
    }
}

/* y of rows [r0, r1) for tokens [t0, t0 + nn) from the int32 sums
 * rowsum[t * rs + r - r0] (sum of code * a, less qsum: sum of w * a). */
static inline void FN(gv_store)(const mp_op *op, const mp_vlut_act *A, float *y, int t0, int nn,
                                int r0, int r1, const int32_t *rowsum, int rs)
{
    for (int t = 0; t < nn; t++) {
        float *yt = y + (size_t)(t0 + t) * op->m;
        for (int r = r0; r < r1; r++)
            yt[r] = mp_dequant(rowsum[(size_t)t * rs + r - r0] - A->qsum[t0 + t], op->w_scale,
                               A->x_scale[t0 + t]);
    }
}

/* Contract: rows [m0, m1), any n; scratch as scratch_size. */
static void FN(gemv)(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                     void *scratch);

/* The body of mp_vlut_gemm__<isa>, which each file defines by calling it:
 * tcl = 0 to the portable code, small N to the GEMV, else the table path. */
static inline void FN(gemm_dispatch)(const mp_op *op, const void *act, int n, float *y, int m0,
                                     int m1, void *scratch)
{
    const int *P = op->param;
    if (!P[MP_VLUT_P_TCL]) {
        mp_vlut_gemm__scalar(op, act, n, y, m0, m1, scratch);
        return;
    }
    if (n < P[MP_VLUT_P_GEMV]) {
        FN(gemv)(op, act, n, y, m0, m1, scratch);
        return;
    }
#if VL == 32
    if (mp_vlut_ntile_eff(n, P) % VL) { /* N_tile = 16: half a vector, the AVX2 code */
        mp_vlut_gemm__avx2(op, act, n, y, m0, m1, scratch);
        return;
    }
#endif
    FN(gemm_tiles)(op, act, n, y, m0, m1, scratch);
}
