/* e2e-greedy.c - greedy decoding on a decoder instance, and the seeded
 * prompts of the lossless check. */
#include "e2e-private.h"

int mp_e2e_argmax(const float *logits, int vocab)
{
    int best = 0;
    for (int i = 1; i < vocab; i++)
        if (logits[i] > logits[best])
            best = i;
    return best;
}

int mp_e2e_greedy(mp_e2e *m, const int *prompt, int plen, int gen, int *out, float *logits_buf)
{
    int zeros[MP_E2E_PROMPT_MAX * 4] = {0};
    unsigned char want[MP_E2E_PROMPT_MAX * 4] = {0};
    if (plen < 1 || plen > (int)(sizeof zeros / sizeof zeros[0]) || gen < 1)
        return MP_EUSAGE;
    mp_e2e_reset(m);
    want[plen - 1] = 1;
    int rc = mp_e2e_forward(m, prompt, zeros, plen, want, logits_buf);
    for (int i = 0; !rc && i < gen; i++) {
        out[i] = m->best[0];
        if (i + 1 < gen)
            rc = mp_e2e_forward(m, &out[i], zeros, 1, NULL, logits_buf);
    }
    return rc;
}

int mp_e2e_prompt(uint64_t seed, int p, int vocab, int *tok)
{
    mp_rng r = {mix(seed, 5000 + (uint64_t)p)};
    int len = MP_E2E_PROMPT_MIN +
              (int)(mp_rng_next(&r) % (uint64_t)(MP_E2E_PROMPT_MAX - MP_E2E_PROMPT_MIN + 1));
    for (int i = 0; i < len; i++)
        tok[i] = (int)(mp_rng_next(&r) % (uint64_t)vocab);
    return len;
}

