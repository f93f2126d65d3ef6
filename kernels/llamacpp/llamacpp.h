/* llamacpp.h - llama.cpp's own CPU kernels as mpbench variants ("peers",
 * issue 15): ggml loaded at run time from the pinned npm package
 * @node-llama-cpp/linux-x64@3.22.1 (`make peers`), so every ratio against
 * TQ2_0 / TQ1_0 / Q8_0 / Q4_0 / F16 / F32 can be taken against the real thing,
 * measured in the same run as our re-implementations.
 *
 * Where the library comes from: $MPBENCH_GGML_DIR if set, otherwise
 * third_party/ggml/ next to the mpbench binary (or its parent directory, for
 * build/mptest), otherwise ./third_party/ggml.  The CPU build is the
 * libggml-cpu-<uarch>.so whose ggml_backend_score() is highest on this CPU,
 * the rule of ggml's own backend loader.
 *
 * pack    = ggml_quantize_chunk() of w * scale (ggml's own quantizer);
 * prepare = records the activations' address (nothing else: llama.cpp converts
 *           F32 activations to the weights' vec_dot type inside mul_mat, and so
 *           does compute here, inside the timed call);
 * compute = y = mul_mat(W, x) on ggml's CPU backend (ggml_backend_graph_compute,
 *           llama.cpp's path), with a ggml threadpool of op->threads threads
 *           pinned like the harness's pool.  Self-threaded (mp_kernel.h);
 * keep_awake = ggml's workers polling (before a timed call) or asleep (after). */
#ifndef MP_LLAMACPP_H
#define MP_LLAMACPP_H

#include <stddef.h>
#include <stdint.h>

#include "../mp_kernel.h"

/* 0 when the peer library is loaded and checked, else -1 with the reason. */
int mp_llamacpp_available(char *why, size_t len);

/* "llama.cpp peer: ggml 0.25.1 (0ad4a86), libggml-cpu-zen4.so (score 1984),
 * @node-llama-cpp/linux-x64 3.22.1, DIR" when loaded; otherwise the reason it is
 * unavailable ("llama.cpp peer: no libggml-base.so in ...").  For the run record. */
const char *mp_llamacpp_describe(char *buf, size_t len);

/* The ggml type of a peer variant (its op->param[0] is not used: one row per type). */
size_t mp_llamacpp_packed_size(int type, int m, int k);
/* ggml_quantize_chunk() of w * w_scale into out: ggml's bytes, row after row. */
int mp_llamacpp_quantize(int type, const int8_t *w, float w_scale, int m, int k, uint8_t *out);

size_t mp_llamacpp_act_size(int n, int k, const int *param);
void mp_llamacpp_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);
/* y[t][m0..m1) = mul_mat rows of W for all N tokens; `type` is the ggml type. */
void mp_llamacpp_compute(int type, const mp_op *op, const void *act, int n, float *y,
                         int m0, int m1);

/* The several-ops-per-graph case (issue 37): one ggml graph of `ops` independent
 * y[i] = mul_mat(W_i, x), W_i = w[i] (op->m x op->k, ggml's bytes; op->w is not
 * used), computed once on op->threads threads.  llama.cpp runs a token's
 * mul_mats this way: its threads pass from one op to the next at a spinning
 * barrier and are never woken in between, so the graph's time / ops is what one
 * mul_mat costs inside inference, the figure a single call is checked against.
 * act is from mp_llamacpp_prepare; each op converts x itself, as in llama.cpp. */
enum { MP_LLAMACPP_MAX_OPS = 8 };
void mp_llamacpp_compute_graph(int type, const mp_op *op, const uint8_t *const *w, int ops,
                               const void *act, int n, float *const *y);
/* Where ggml's workers of op->threads wait between calls: awake = 1 returns
 * when all are running and polling for work (as between two ops of inference;
 * with MPBENCH_GGML_POLL=0 they sleep again at once, which is what that setting
 * measures); awake = 0 puts them to sleep (ggml_threadpool_pause) until the
 * next call, which wakes them itself.  The variants' keep_awake (mp_kernel.h). */
void mp_llamacpp_keep_awake(const mp_op *op, int awake);

#endif
