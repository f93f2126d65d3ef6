/* gguf-tensors.h - how llama.cpp names and orders a model's tensors in a GGUF
 * file, for the reader of models (gguf-model.c) and the writer of seeded ones
 * (gguf-write-model.c).  Private to gguf/. */
#ifndef MP_GGUF_TENSORS_H
#define MP_GGUF_TENSORS_H

#include <stdint.h>
#include <stdio.h>

#include "../e2e/mp_e2e.h"

/* The ternary linears, in the runner's order (MP_E2E_Q ... MP_E2E_DOWN). */
static const char *const lin_tensor[MP_E2E_NLIN] = {
    "attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};

/* The norms, in the order of the weight source's norm index (mp_e2e_source). */
static const char *const norm_tensor[5] = {"attn_norm", "ffn_norm", "attn_sub_norm",
                                           "ffn_sub_norm", "output_norm"};

/* Tensor name with a layer, e.g. tname(buf, 3, "ffn_up", "weight"); a layer
 * below 0: none ("output_norm.weight"). */
static inline const char *tname(char *buf, size_t len, int layer, const char *what,
                                const char *suffix)
{
    if (layer < 0)
        snprintf(buf, len, "%s.%s", what, suffix);
    else
        snprintf(buf, len, "blk.%d.%s.%s", layer, what, suffix);
    return buf;
}

/* llama.cpp's Q/K row order for rope on adjacent pairs, from the HF (rotate-half)
 * order: gguf row h*hd + 2i + j holds HF row h*hd + j*hd/2 + i. */
static inline int64_t hf_row_of_gguf(int64_t r, int hd)
{
    int64_t h = r / hd, o = r % hd, half = hd / 2;
    return h * hd + (o % 2) * half + o / 2;
}

#endif
