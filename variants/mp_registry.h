/* mp_registry.h - the registry built from the catalog (variants/catalog.h). */
#ifndef MP_REGISTRY_H
#define MP_REGISTRY_H

#include <stddef.h>

#include "../kernels/mp_kernel.h"

int mp_registry_count(void);
/* Test builds only: appends a zero-terminated table of test variants; call it
 * before the first lookup (tests/variants/ does, from a constructor). */
void mp_registry_add_testing(const mp_variant *table);
const mp_variant *mp_registry_get(int i);
/* How many of the first rows come from the catalog (variants/); the test
 * tables of mp_registry_add_testing come after them. */
int mp_registry_catalog_count(void);
const mp_variant *mp_registry_find(const char *name);
/* 1 when the CPU (after MPBENCH_MAX_ISA) has the variant's ISA and, for a peer,
 * its library loaded. */
int mp_variant_available(const mp_variant *v);
/* 0 when available (ISA bits and v->available), else -1 with the reason in why
 * ("cpu lacks avx512", "llama.cpp peer: no libggml-base.so in DIR", ...). */
int mp_variant_unavailable_reason(const mp_variant *v, char *why, size_t len);
/* The ISA token of a name ("avx2" in "i2_s.avx2.bm32"), copied to buf; "ggml"
 * for a peer (its CPU build is chosen at load time, see mp_llamacpp_describe). */
const char *mp_variant_isa_token(const mp_variant *v, char *buf, size_t len);
/* The scalar sibling of a SIMD variant (same name with ISA token "scalar"), or NULL. */
const mp_variant *mp_variant_scalar_sibling(const mp_variant *v);
const char *mp_family_name(mp_family f);
/* One line on what the family holds (mp_kernel.h's MP_FAMILIES). */
const char *mp_family_doc(mp_family f);
/* Shape check: K multiple, then v->check.  0 when the variant takes (m, k). */
int mp_variant_check(const mp_variant *v, int m, int k, const int *param, char *why,
                     size_t len);
/* Default parameter values into param[MP_MAX_PARAMS]: the catalog's, with pf
 * and pfh from this CPU's line of the per-CPU prefetch table where it has one
 * (mp_variant_pf_default). */
void mp_variant_defaults(const mp_variant *v, int *param);
/* The per-CPU prefetch defaults (registry.c, issue 41; placeholders equal to
 * the catalog's until measured): 0 with *pf, *pfh and the entry's *reason
 * (reason may be NULL) when v has both pf and pfh and the table a line for
 * (vendor, family) that applies to v's method; -1 otherwise. */
int mp_variant_pf_default(const mp_variant *v, const char *vendor, int family, int *pf,
                          int *pfh, const char **reason);
/* 1 when param is v's default on some CPU: the catalog's defaults, or those with
 * pf and pfh of a line of the per-CPU table that applies to v (a row measured
 * at its own machine's defaults counts as a default row on any machine). */
int mp_variant_default_somewhere(const mp_variant *v, const int *param);
/* Index of parameter `name`, or -1. */
int mp_variant_param_index(const mp_variant *v, const char *name);
/* Formats "name=value,..." (empty when no parameters), leaving out a parameter
 * marked omit_default while it holds its catalog default. */
const char *mp_params_str(const mp_variant *v, const int *param, char *buf, size_t len);
/* Parses "name=value,..." over the catalog's defaults (what a stored string
 * leaves out, on every machine; not this CPU's prefetch line); 0 ok, else why is set.  A renamed
 * spelling of the variant's family (catalog.h, MP_PARAM_RENAMES) is taken for
 * its new name, with a one-line notice on stderr (once per spelling). */
int mp_params_parse(const mp_variant *v, const char *s, int *param, char *why, size_t len);

/* Which llama.cpp build the llamacpp.* peers run (ggml version, commit, CPU
 * build, package), or why they are unavailable (variants/peer.c). */
const char *mp_registry_peers_describe(char *buf, size_t len);

/* The machine probe's loops for this CPU (variants/probe.c). */
const mp_probe_ops *mp_registry_probe_ops(void);
/* The read methods the bandwidth probe tries on this CPU, into out (max):
 * "plain" (256-bit loads with AVX2, else scalar), "wide" (512-bit loads, with
 * AVX-512 only), "pf" (the widest loads with prefetcht0 MP_PROBE_PF_DIST
 * ahead), "nt" (non-temporal loads with prefetchnta ahead, where the ISA has
 * them).  Returns the count. */
int mp_registry_probe_reads(mp_probe_read *out, int max);
/* The software-prefetched read of the widest loads ("pf"; "plain" where there
 * is none): the e2e decode bound's reader beside each step. */
mp_probe_read mp_registry_probe_read_pf(void);

#endif
