/* vnni-gemm.h - the unpack-once GEMM tile loop of seed 003 §III written once
 * for every x86 path: included by vnni-ymm-gemm.h (AVX2, AVX-VNNI) and
 * vnni-avx512vnni.c after their micro-kernels.  Per mtile rows and ktile of K,
 * the packed weight tiles are up-converted into scratch once (the includer's
 * up_tile), then every ntile tokens run the register-blocked micro-kernel on
 * them (uk_table), and each row block is dequantised at its end.  The
 * activations are first copied, once per call, into k-tile-major order (each k
 * tile: every token's ktile bytes, one after the other), so the micro-kernels
 * walk them sequentially: read in place, a token pair's slices lay a K-row
 * apart, and between two uses of one slice the whole N x K passes (884 KB at
 * 2560x6912, N = 128: more than a Zen 3 core's 512 KB L2).  AMD EPYC AVX2 VM, vnni_int2.avx2, `mpbench run --model
 * bitnet-b1.58-2b-4t --n 128 --threads 1,2 --clock-gate 90`, the binaries
 * without and with the copy alternated twice: 1 thread 250.7-270.3 ->
 * 259.7-275.4 GOPS, 2 threads 495.9-540.5 -> 506.4-548.2 (a small gain, within
 * the VM's noise at some shapes).  The includer
 * defines:
 *   consts, make_consts()            its up-convert constants
 *   up_tile(c, src, dst, mr, int1)   one packed 16 x 16 tile at src up-converted
 *                                    to int8: group g to dst + g * mr * 64
 *   uk_table[mr - 1][nr - 1]         micro-kernels, ukernel_fn */

static void gemm(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                 void *scratch, int int1)
{
    const consts c = make_consts();
    const int k = op->k, bm = op->param[MP_VNNI_P_MTILE], bn = op->param[MP_VNNI_P_NTILE];
    const int bkt = op->param[MP_VNNI_P_KTILE] / 16;
    const size_t nt = ((size_t)k + 15) / 16;
    const size_t tb = int1 ? MP_VNNI_INT1_TILE_BYTES : MP_VNNI_INT2_TILE_BYTES;
    uint8_t *wb = scratch;
    int32_t *cs = (int32_t *)((uint8_t *)scratch + (size_t)bm * op->param[MP_VNNI_P_KTILE]);
    /* k tile j0 (every earlier tile is bkt * 16 long) at j0 * 16 * n, token t's
     * slice t * its length after it (mp_vnni_scratch_size counts these bytes) */
    int8_t *qa = (int8_t *)(cs + (size_t)bm * n);
    for (size_t j0 = 0; j0 < nt; j0 += (size_t)bkt) {
        const size_t len = (nt - j0 < (size_t)bkt ? nt - j0 : (size_t)bkt) * 16;
        for (int t = 0; t < n; t++)
            memcpy(qa + j0 * 16 * (size_t)n + (size_t)t * len, mp_q8act_q(act, k, t) + j0 * 16,
                   len);
    }
    const int8_t *qt[16];
    for (int r = m0; r < m1; r += bm) {
        int rows = m1 - r < bm ? m1 - r : bm;
        int mr = (rows + 15) / 16;
        for (size_t j0 = 0; j0 < nt; j0 += (size_t)bkt) {
            int ntk = nt - j0 < (size_t)bkt ? (int)(nt - j0) : bkt;
            /* the tiles up-converted next (the next k tile of these rows, or the
             * first of the next row block) into L2 while these are used: without
             * it the up-convert waited on each tile's load, 2% of the call (perf,
             * 2560x2560, N = 128: the weights are out of L2 at this size) */
            const int last = j0 + (size_t)bkt >= nt;
            for (int i = 0; i < mr; i++) {
                const uint8_t *src = op->w + ((size_t)(r / 16 + i) * nt + j0) * tb;
                const uint8_t *next = last ? op->w + (size_t)((r + bm) / 16 + i) * nt * tb
                                           : src + (size_t)ntk * tb;
                const int pf_next = !last || r + bm < m1;
                for (int jj = 0; jj < ntk; jj++) {
                    if (pf_next)
                        _mm_prefetch((const char *)next + (size_t)jj * tb, _MM_HINT_T1);
                    up_tile(&c, src + jj * tb, wb + ((size_t)4 * jj * mr + i) * 64, mr, int1);
                }
            }
            const int8_t *qj = qa + j0 * 16 * (size_t)n;
            for (int t0 = 0; t0 < n; t0 += bn) {
                int nb = n - t0 < bn ? n - t0 : bn;
                for (int t = 0; t < nb; t++)
                    qt[t] = qj + (size_t)(t0 + t) * ntk * 16;
                uk_table[mr - 1][nb - 1](wb, 4 * ntk, qt, cs + (size_t)t0 * bm, bm, j0 == 0);
            }
        }
        for (int t = 0; t < n; t++) {
            const mp_q8hdr *h = mp_q8act_hdr(act, k, t);
            float *yt = y + (size_t)t * op->m + r;
            mp_x86_dequant_row(yt, cs + (size_t)t * bm, rows, h->qsum, op->w_scale, h->x_scale);
        }
    }
}
