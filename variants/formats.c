/* formats.c - the traits table of mp_formats.h, generated from its rows, and
 * static checks that its block sizes agree with the kernels' own constants. */
#include "mp_formats.h"

#include "../kernels/q4_0/q4_0.h"
#include "../kernels/q8_0/q8_0.h"
#include "../kernels/tq/tq.h"

#define MP_WF_ROW_(ID) MP_WF_ROW__(MP_WF_ARGS_##ID)
#define MP_WF_ROW__(...) MP_WF_ROW___(__VA_ARGS__)
#define MP_WF_ROW___(ID, METHOD, FAM, EX, DOM, BLOCK, BYTES, KMUL, SRC)                   \
    [MP_WF_##ID] = {METHOD, MP_FAMILY_##FAM, EX, MP_DOMAIN_##DOM, BLOCK, BYTES, KMUL, SRC},

static const mp_wformat_traits table[MP_WF_COUNT] = {MP_WFORMATS(MP_WF_ROW_)};

/* the ggml block formats: the table says what the block structs say */
#define MP_WF_BYTES_(ID) MP_WF_BYTES__(MP_WF_ARGS_##ID)
#define MP_WF_BYTES__(...) MP_WF_BYTES___(__VA_ARGS__)
#define MP_WF_BYTES___(ID, METHOD, FAM, EX, DOM, BLOCK, BYTES, KMUL, SRC) (BLOCK * 1000 + BYTES)
_Static_assert(MP_WF_BYTES_(Q8_0) == MP_Q80_QK * 1000 + MP_Q80_BYTES, "Q8_0 traits");
_Static_assert(MP_WF_BYTES_(Q4_0) == MP_Q40_QK * 1000 + MP_Q40_BYTES, "Q4_0 traits");
_Static_assert(MP_WF_BYTES_(TQ1_0) == MP_QK_K * 1000 + MP_TQ1_BYTES, "TQ1_0 traits");
_Static_assert(MP_WF_BYTES_(TQ2_0) == MP_QK_K * 1000 + MP_TQ2_BYTES, "TQ2_0 traits");

const mp_wformat_traits *mp_wformat_get(int f)
{
    return f > MP_WF_NONE && f < MP_WF_COUNT ? &table[f] : 0;
}
