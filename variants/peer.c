/* peer.c - catalog rows of the peers: llama.cpp's own CPU kernels (ggml,
 * loaded at run time, kernels/llamacpp/) for the formats we re-implement, so a
 * run can measure ours against the real thing (issue 15).  One row per ggml
 * type; each row is self-threaded (ggml runs its own pinned threadpool) and
 * available only when the library loaded (`make peers`). */
#include <stdio.h>

#include "catalog.h"
#include "mp_registry.h"

/* The peer package is a linux-x64 build of llama.cpp: no peers elsewhere. */
#if MP_CATALOG_X86
#include "../kernels/llamacpp/llamacpp.h"
#include "../kernels/llamacpp/ggml-api.h"

#define PEER_FUNCS(size, pack, compute, TYPE)                                          \
    static size_t size(int m, int k, const int *param)                                 \
    {                                                                                  \
        (void)param;                                                                   \
        return mp_llamacpp_packed_size(TYPE, m, k);                                    \
    }                                                                                  \
    static void pack(const int8_t *w, float s, int m, int k, const int *param,         \
                     uint8_t *out)                                                     \
    {                                                                                  \
        (void)param;                                                                   \
        if (mp_llamacpp_quantize(TYPE, w, s, m, k, out))                               \
            __builtin_trap(); /* only reachable when unavailable: never packed */      \
    }                                                                                  \
    static void compute(const mp_op *op, const void *act, int n, float *y, int m0,     \
                        int m1, void *scratch)                                         \
    {                                                                                  \
        (void)scratch;                                                                 \
        mp_llamacpp_compute(TYPE, op, act, n, y, m0, m1);                              \
    }

PEER_FUNCS(tq1_0_size, tq1_0_pack, tq1_0_compute, MP_GGML_TYPE_TQ1_0)
PEER_FUNCS(tq2_0_size, tq2_0_pack, tq2_0_compute, MP_GGML_TYPE_TQ2_0)
PEER_FUNCS(q4_0_size, q4_0_pack, q4_0_compute, MP_GGML_TYPE_Q4_0)
PEER_FUNCS(q8_0_size, q8_0_pack, q8_0_compute, MP_GGML_TYPE_Q8_0)
PEER_FUNCS(f16_size, f16_pack, f16_compute, MP_GGML_TYPE_F16)
PEER_FUNCS(f32_size, f32_pack, f32_compute, MP_GGML_TYPE_F32)

/* method names carry the LLAMACPP_ prefix so that reports keyed by method never
 * mix the peer with our re-implementation of the same format */
#define PEER_ROW(NAME, fmt, FMT, ex, kmul)                                             \
    {MP_SOURCES("variants/peer.c", fmt##_pack, "kernels/llamacpp/llamacpp-peer.c",       \
                mp_llamacpp_prepare, "variants/peer.c", fmt##_compute),                  \
     .name = NAME, .method = "LLAMACPP_" FMT, .family = MP_FAMILY_PEER,    \
     .isa = MP_ISA_SCALAR, .exactness = ex, .domain = MP_DOMAIN_TERNARY,               \
     .k_multiple = kmul, .m_align = 1,                                                 \
     .source = "llama.cpp " FMT " (ggml mul_mat, @node-llama-cpp/linux-x64 3.22.1)",   \
     .packed_size = fmt##_size, .pack = fmt##_pack, .act_size = mp_llamacpp_act_size,  \
     .prepare = mp_llamacpp_prepare, .compute = fmt##_compute, .self_threaded = 1,     \
     .keep_awake = mp_llamacpp_keep_awake, .available = mp_llamacpp_available}

const mp_variant mp_catalog_peer[] = {
    PEER_ROW("llamacpp.tq1_0", tq1_0, "TQ1_0", MP_LOSSY, 256),
    PEER_ROW("llamacpp.tq2_0", tq2_0, "TQ2_0", MP_LOSSY, 256),
    PEER_ROW("llamacpp.q4_0", q4_0, "Q4_0", MP_LOSSY, 32),
    PEER_ROW("llamacpp.q8_0", q8_0, "Q8_0", MP_LOSSY, 32),
    PEER_ROW("llamacpp.f16", f16, "F16", MP_FLOAT, 1),
    PEER_ROW("llamacpp.f32", f32, "F32", MP_FLOAT, 1),
    {0},
};

const char *mp_registry_peers_describe(char *buf, size_t len)
{
    return mp_llamacpp_describe(buf, len);
}
#else
const mp_variant mp_catalog_peer[] = {{0}};

const char *mp_registry_peers_describe(char *buf, size_t len)
{
    snprintf(buf, len, "llama.cpp peer: none on this architecture (the pinned package is "
                       "linux-x64)");
    return buf;
}
#endif
