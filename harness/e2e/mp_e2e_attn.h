/* mp_e2e_attn.h - the end-to-end runner's attention loops (harness/e2e-attn.c):
 * the scores q.k_j of one (token, head) pair over its cached keys and the
 * softmax over them and the probability-weighted sum of its cached values.  The
 * final scaling and the split over (token, head) pairs stay in e2e.c. */
#ifndef MP_E2E_ATTN_H
#define MP_E2E_ATTN_H

/* sc[j] = (q . k_j) * scale for the nkeys keys k_j = k + j * hd. */
typedef void (*mp_e2e_attn_scores_fn)(const float *q, const float *k, int hd, int nkeys,
                                      float scale, float *sc);
/* o[d] = sum over j = 0..nkeys-1, in j order, of p[j] * v_j[d], v_j = v + j * hd. */
typedef void (*mp_e2e_attn_mix_fn)(const float *p, const float *v, int hd, int nkeys,
                                   float *o);

/* sc[j] = e^(sc[j] - max_j sc[j]) in place for j < n; returns their sum (the
 * order: harness/e2e-attn-simd.h). */
typedef float (*mp_e2e_attn_softmax_fn)(float *sc, int n);

/* One compiled copy of the loops (harness/e2e-attn-simd.h). */
typedef struct mp_e2e_attn_copy {
    const char *name; /* "generic", "avx2", "avx512" */
    unsigned isa;     /* mp_isa_bits it needs */
    mp_e2e_attn_scores_fn scores;
    mp_e2e_attn_mix_fn mix;
    mp_e2e_attn_softmax_fn softmax;
} mp_e2e_attn_copy;

/* Chooses the widest copy this CPU runs (after MPBENCH_MAX_ISA); call while no
 * other thread uses the loops (mp_e2e_create does). */
void mp_e2e_attn_init(void);
/* The chosen copy. */
const mp_e2e_attn_copy *mp_e2e_attn(void);
/* The copy named name when this build has it and the CPU runs it, else NULL
 * (tests: every copy gives the generic copy's bits). */
const mp_e2e_attn_copy *mp_e2e_attn_isa(const char *name);

#endif
