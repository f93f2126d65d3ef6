/* e2e-spec.c - what an instance of the decoder needs before it is built: the
 * memory estimate and its check against the machine, the variant of each
 * linear layer (--variant qkv=..,o=..) and the check that each takes its shape. */
#include "e2e-private.h"
#include "../../kernels/common/mp_parse.h"

size_t mp_e2e_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

void mp_e2e_lin_shape(const mp_e2e_spec *s, int l, int *m, int *k)
{
    mp_linear ls[8];
    mp_model_linears(&s->model, ls);
    *m = ls[l].m;
    *k = ls[l].k;
}

void mp_e2e_estimate(const mp_e2e_spec *s, mp_e2e_mem *mem)
{
    const mp_model *md = &s->model;
    memset(mem, 0, sizeof *mem);
    size_t max_scr = 0, staging = 0, acts = 0;
    for (int l = 0; l < MP_E2E_NLIN; l++) {
        const mp_variant *v = mp_e2e_choice_variant(&s->lin[l]);
        const int *p = s->lin[l].param;
        int m, k;
        mp_e2e_lin_shape(s, l, &m, &k);
        mem->ternary += v->packed_size(m, k, p) * (size_t)s->layers;
        mem->ternary_weights += (double)m * k * s->layers;
        acts += v->act_size(s->max_tokens, k, p);
        size_t sc = v->scratch_size ? v->scratch_size(s->max_tokens, k, p) : 0;
        if (sc > max_scr)
            max_scr = sc;
        if ((size_t)m * k > staging)
            staging = (size_t)m * k;
    }
    size_t H = (size_t)md->hidden, qd = (size_t)md->heads * md->head_dim;
    size_t kvd = (size_t)md->kv_heads * md->head_dim, I = (size_t)md->intermediate;
    size_t V = (size_t)md->vocab, T = (size_t)s->max_tokens, nt = (size_t)s->threads;
    mem->floats = V * mp_e2e_head_row_bytes(s->head, md->hidden) * (md->tied ? 1 : 2) +
                  sizeof(float) * (H + (size_t)s->layers * (2 * H + qd + I));
    mem->kv = sizeof(float) * 2 * (size_t)s->layers * (size_t)s->max_seqs * (size_t)s->max_ctx * kvd;
    size_t bigd = H > qd ? H : qd;
    mem->scratch = sizeof(float) * T * (2 * H + bigd + qd + 2 * kvd + qd + H + 2 * I) + acts +
                   nt * max_scr + sizeof(float) * nt * (size_t)s->max_ctx +
                   T * mp_e2e_head_prep_bytes(s->head, md->hidden) +
                   sizeof(float) * (size_t)s->max_ctx * (size_t)md->head_dim +
                   (sizeof(int) + sizeof(float)) * (V / (size_t)head_chunk_rows(
                       mp_e2e_head_row_bytes(s->head, md->hidden), md->vocab, s->threads) + 1) *
                       T /* argmax */ +
                   2 * sizeof(int) * 16 * nt +
                   sizeof(float) * T * H /* hn */ +
                   sizeof(float) * V * (size_t)s->max_seqs /* the caller's logits rows */;
    mem->staging = staging * nt + sizeof(uint16_t) * H * HEAD_CHUNK * nt;
    mem->shared = s->shared ? mp_e2e_shared_bytes(md, s->layers) : 0;
    if (s->bound_read) { /* a token reads at most the weights and the KV cache */
        size_t tok = mem->ternary + mem->floats + mem->kv;
        mem->bound_read = tok < MP_E2E_BOUND_READ_CAP ? tok : MP_E2E_BOUND_READ_CAP;
    }
    mem->ref_logits = s->ref_logits;
    mem->total = mem->ternary + mem->floats + mem->kv + mem->scratch + mem->shared +
                 mem->ref_logits +
                 (mem->staging > mem->bound_read ? mem->staging : mem->bound_read);
}

static double gib(size_t b)
{
    return (double)b / (1024.0 * 1024.0 * 1024.0);
}

/* m against what is available; what names the instances in the message */
static int mem_fits(const mp_e2e_spec *s, const mp_e2e_mem *m, const char *what, mp_err *e)
{
    size_t avail = mp_e2e_mem_available();
    long cap = mp_env_long("MPBENCH_E2E_MEM_LIMIT", 0); /* tests and shared machines */
    if (cap > 0 && (avail == 0 || (size_t)cap < avail))
        avail = (size_t)cap;
    if (avail == 0)
        return MP_OK; /* unknown: do not guess */
    /* margin: a tenth of what is available, at least 128 MiB (half on tiny limits) */
    size_t floor_ = avail / 2 < (128u << 20) ? avail / 2 : (128u << 20);
    size_t margin = avail / 10 > floor_ ? avail / 10 : floor_;
    size_t usable = avail > margin ? avail - margin : 0;
    if (m->total > usable)
        return mp_fail(e, MP_EUSAGE,
                       "model %s (%d of %d layers)%s needs %.2f GiB (ternary %.2f, float parts "
                       "%.2f, KV cache %.2f, scratch %.2f, packing %.2f, shared %.2f, the decode "
                       "bound's read %.2f, reference logits %.2f; packing and that read never at "
                       "once) but only %.2f GiB is usable (MemAvailable %.2f GiB minus margin); "
                       "refusing instead of swapping: try fewer --layers, a smaller --batch, "
                       "shorter --pp/--tg or fewer --prompts/--tokens",
                       s->model.name, s->layers, s->model.layers, what, gib(m->total),
                       gib(m->ternary), gib(m->floats), gib(m->kv), gib(m->scratch),
                       gib(m->staging), gib(m->shared), gib(m->bound_read), gib(m->ref_logits),
                       gib(usable), gib(avail));
    return MP_OK;
}

int mp_e2e_mem_check(const mp_e2e_spec *s, mp_err *e)
{
    mp_e2e_mem m;
    mp_e2e_estimate(s, &m);
    return mem_fits(s, &m, "", e);
}

int mp_e2e_mem_check_sum(const mp_e2e_spec *s, const mp_e2e_mem *sum, int n, mp_err *e)
{
    mp_e2e_mem m = *sum;
    m.total = m.ternary + m.floats + m.kv + m.scratch + m.shared + m.ref_logits +
              (m.staging > m.bound_read ? m.staging : m.bound_read);
    char what[64];
    snprintf(what, sizeof what, ", %d instances at once,", n);
    return mem_fits(s, &m, what, e);
}

int mp_e2e_parse_variant_for(const char *s, mp_e2e_choice *lin, int *set, mp_err *e)
{
    char buf[1024];
    if (!s || !*s || strlen(s) >= sizeof buf)
        return mp_fail(e, MP_EUSAGE, "--variant-for: missing or too long");
    strcpy(buf, s);
    size_t l = strlen(buf); /* strtok would skip an empty item: ',' selected nothing */
    if (buf[0] == ',' || buf[l - 1] == ',' || strstr(buf, ",,"))
        return mp_fail(e, MP_EUSAGE, "--variant-for: empty item in '%s'", s);
    char *save = NULL;
    for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(it, '=');
        if (!eq || eq == it || !eq[1])
            return mp_fail(e, MP_EUSAGE,
                           "--variant-for: '%s' is not GROUP=VARIANT (groups: qkv, o, ffn_up, "
                           "ffn_down)", it);
        *eq = 0;
        const char *grp = it, *name = eq + 1;
        int lo, hi;
        if (!strcmp(grp, "qkv"))
            lo = MP_E2E_Q, hi = MP_E2E_V;
        else if (!strcmp(grp, "o"))
            lo = hi = MP_E2E_O;
        else if (!strcmp(grp, "ffn_up"))
            lo = MP_E2E_GATE, hi = MP_E2E_UP;
        else if (!strcmp(grp, "ffn_down"))
            lo = hi = MP_E2E_DOWN;
        else
            return mp_fail(e, MP_EUSAGE,
                           "--variant-for: unknown group '%s' (groups: qkv, o, ffn_up, ffn_down)",
                           grp);
        const mp_variant *sel[4];
        int n;
        mp_err e2;
        if (mp_select_variants(name, sel, 4, &n, &e2))
            return mp_fail(e, MP_EUSAGE, "--variant-for %s=%s: %s", grp, name, e2.msg);
        if (n != 1)
            return mp_fail(e, MP_EUSAGE,
                           "--variant-for %s=%s: matches %d variants; name exactly one", grp,
                           name, n);
        for (int l = lo; l <= hi; l++) {
            lin[l].v = sel[0];
            mp_variant_defaults(sel[0], lin[l].param);
            lin[l].binary = 0;
            set[l] = 1;
        }
    }
    return MP_OK;
}

int mp_e2e_check(const mp_e2e_spec *s, mp_err *e)
{
    const mp_model *md = &s->model;
    if (s->layers < 1 || s->layers > md->layers)
        return mp_fail(e, MP_EUSAGE, "--layers %d: model %s has %d layers", s->layers, md->name,
                       md->layers);
    if (s->max_seqs < 1 || s->max_ctx < 1 || s->max_tokens < 1 || s->threads < 1)
        return mp_fail(e, MP_EUSAGE, "e2e: sequences, context, tokens and threads must be >= 1");
    if (s->max_ctx > md->max_pos)
        return mp_fail(e, MP_EUSAGE,
                       "e2e: %d positions per sequence exceed model %s's max_pos %d",
                       s->max_ctx, md->name, md->max_pos);
    if (!mp_e2e_head_cols_ok(s->head, md->hidden))
        return mp_fail(e, MP_EUSAGE, "--lm-head %s: model %s's hidden size %d is not a multiple "
                       "of the format's 32-weight blocks", mp_e2e_head_name(s->head), md->name,
                       md->hidden);
    for (int l = 0; l < MP_E2E_NLIN; l++) {
        const mp_variant *v = s->lin[l].v;
        int m, k;
        mp_e2e_lin_shape(s, l, &m, &k);
        if (!v)
            continue;
        if (s->src && s->src->ternary_only && v->domain == MP_DOMAIN_BINARY)
            return mp_fail(e, MP_EUSAGE, "layer %s (%dx%d) of %s: variant %s takes only +-1 "
                           "weights, but the weights of %s are ternary", lin_name[l], m, k,
                           md->name, v->name, s->src->name ? s->src->name : "the source");
        char why[256], isa[32];
        if (v->available && v->available(why, sizeof why)) /* issue 15: a peer's library */
            return mp_fail(e, MP_EUSAGE, "layer %s (%dx%d) of %s: variant %s is unavailable: %s",
                           lin_name[l], m, k, md->name, v->name, why);
        if (!mp_variant_available(v))
            return mp_fail(e, MP_EUSAGE,
                           "layer %s (%dx%d) of %s: variant %s needs ISA %s, which this CPU "
                           "lacks", lin_name[l], m, k, md->name, v->name,
                           mp_variant_isa_token(v, isa, sizeof isa));
        if (mp_variant_check(v, m, k, s->lin[l].param, why, sizeof why))
            return mp_fail(e, MP_EUSAGE, "layer %s (%dx%d) of %s: variant %s cannot take it: %s",
                           lin_name[l], m, k, md->name, v->name, why);
    }
    return MP_OK;
}

