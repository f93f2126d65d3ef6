#!/usr/bin/env bash
# e2e-limit.sh - the figures of issue 17 on a quiet machine: `make e2e-limit`.
#
# For each model and thread count: `mpbench e2e` with the decode and prefill
# variants, --profile, the head as shipped (f16) and, for the best decode
# variant, the q8_0/q4_0 heads; each command's whole wall time (setup included)
# is printed after it, and the rows (tokens/s, bound, share, setup, profile)
# go to the store.  With no `mpbench probe` of this machine in DB, each decode
# row's bound is a read of the token's bytes made beside each of its steps
# (the median kept), which on a shared host meets the same neighbours as the
# steps; with one, the stored probe's read at that thread count is used as it
# is.  BEFORE=path/to/old/mpbench runs the same commands with an older
# binary (without the issue-17 options) for the "before" wall times.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-./mpbench}
MODELS=${MODELS:-"bitnet-b1.58-2b-4t llama3-8b-1.58"}
THREADS=${THREADS:-"1 2"}
DECODE=${DECODE:-"vnni_int2.avx512vnni,i2_s.avx512,tl2_1.avx512.bm32,tl2_0.avx512.bm16"}
PREFILL=${PREFILL:-"vnni_int2.avx512vnni,tl2_1.avx512.bm32"}
PP=${PP:-128}
TG=${TG:-32}
REPS=${REPS:-3}
DB=${DB:-results/mpbench.db}
CACHE=${CACHE:-results/packcache}
status=0
timed() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" || status=1
    t1=$(date +%s.%N)
    printf 'wall time of the whole command: %.1f s\n\n' "$(echo "$t1 - $t0" | bc)"
}
for m in $MODELS; do
    for t in $THREADS; do
        if [ -n "${BEFORE:-}" ]; then
            echo "== before: $m, $t threads"
            timed "$BEFORE" e2e --model "$m" --variant "$DECODE" --pp 0 --tg "$TG" \
                --reps "$REPS" --threads "$t" --no-db
        fi
        echo "== decode: $m, $t threads"
        timed "$BIN" e2e --model "$m" --variant "$DECODE" --pp 0 --tg "$TG" --reps "$REPS" \
            --threads "$t" --profile --weight-cache "$CACHE" --db "$DB"
        echo "== decode again (packed weights from the cache): $m, $t threads"
        timed "$BIN" e2e --model "$m" --variant "$DECODE" --pp 0 --tg "$TG" --reps "$REPS" \
            --threads "$t" --profile --weight-cache "$CACHE" --no-db
        echo "== prefill pp$PP: $m, $t threads"
        timed "$BIN" e2e --model "$m" --variant "$PREFILL" --pp "$PP" --tg 0 --reps "$REPS" \
            --threads "$t" --profile --weight-cache "$CACHE" --db "$DB"
        for h in q8_0 q4_0; do
            echo "== decode, --lm-head $h: $m, $t threads"
            timed "$BIN" e2e --model "$m" --variant "${DECODE%%,*}" --pp 0 --tg "$TG" \
                --reps "$REPS" --threads "$t" --profile --lm-head "$h" \
                --weight-cache "$CACHE" --db "$DB"
        done
    done
done
exit $status
