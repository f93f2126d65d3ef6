#!/usr/bin/env bash
# table7.sh - reproduce seed 000 Table 7 (decode tokens/s per kernel and model
# size, "unlimited threads") on this machine: `make table7`.
#
# Every bitnetcpp-* size of the table runs whole while its weights fit in memory;
# the larger ones run their first LAYERS_BIG decoder layers (the report marks
# them "(L/M layers)": those are not the full model's tokens/s).  A kernel whose
# model does not fit is refused by e2e's memory estimate and shows as not run,
# as the paper's N/A.  Results go to the store; `mpbench report` puts them next
# to the paper's rows.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-./mpbench}
THREADS=${THREADS:-$(nproc)}
TG=${TG:-16}
REPS=${REPS:-3}
DB=${DB:-results/mpbench.db}
FULL=${FULL-"bitnetcpp-700m bitnetcpp-1.5b bitnetcpp-3.8b bitnetcpp-7b"}
BIG=${BIG-"bitnetcpp-13b bitnetcpp-30b bitnetcpp-70b bitnetcpp-100b"}
LAYERS_BIG=${LAYERS_BIG:-4}
# the paper's columns: F16, Q4_0, T-MAC, TQ1_0, TQ2_0, TL1_0, TL2_0, I2_S (best ISA of each)
VARIANTS=${VARIANTS:-"f16.avx2,q4_0.avx512,tmac_int2.avx512,tq1_0.avx512,tq2_0.avx512,tl1_0.avx512.bm32,tl2_0.avx512.bm16,i2_s.avx512"}
status=0
for m in $FULL; do
    "$BIN" e2e --model "$m" --variant "$VARIANTS" --pp 0 --tg "$TG" --reps "$REPS" \
        --threads "$THREADS" --db "$DB" || status=1
done
for m in $BIG; do
    "$BIN" e2e --model "$m" --variant "$VARIANTS" --pp 0 --tg "$TG" --reps "$REPS" \
        --threads "$THREADS" --layers "$LAYERS_BIG" --db "$DB" || status=1
done
exit $status
