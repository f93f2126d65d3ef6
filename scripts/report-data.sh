#!/usr/bin/env bash
# report-data.sh - every measurement REPORT.md needs, into a fresh database
# (default results/report.db), then REPORT.md and its CSV tables regenerated
# from it: `make report-data` (issue 16, provenance).  Commit the database
# with the report: `make report` then reproduces REPORT.md byte for byte (but
# its generation-time line) and the report test checks it.
#
#   1. probe: STREAM-like read (best of several read methods)/copy/triad per
#      thread count, the int8 dot and shuffle peaks, every variant's compute
#      roof at N = 1 and 128 per thread count (section 1, 7, claims)
#   2. kernels at N = 1 (GEMV, section 7, claims) and N = 128 (section 4,
#      claims) on 1 and 2 threads: every SIMD variant of every family, the
#      int8-weight i8 variants, and llama.cpp's own kernels (llamacpp.*, the
#      peers of section 8, when `make peers` fetched them)
#   3. throughput against N on one shape (section 6)
#   4. end to end: decode of whole bitnetcpp-* models with the papers' kernels
#      (section 2; spread over REPS repetitions), prefill and parallel decoding
#      for the Vec-LUT claims
#   4a. the memory limit (section 2a): bitnet-b1.58-2b-4t (QUICK: bitnetcpp-125m)
#      with the best decode variant, pp and tg16, --profile, on 1 and 2 threads
#   5. lossless: bitnetcpp-125m (K = 768 and 3072, multiples of the 256-weight
#      TQ1_0/TQ2_0 block, so they are measured, not skipped), 2 layers
#   6. compaction: raw per-repetition samples the report does not print are
#      dropped and the file vacuumed (kept small enough to commit)
#
# QUICK=1 shrinks every step (one shape, few repetitions, the smallest model):
# minutes, for the committed test database; the full run is bounded at about
# 25 minutes on a 2-core machine.  Run it on a quiet machine: the figures are
# only as good as the machine was idle.  RESUME=1 keeps an existing database
# (every command resumes what it already stored) instead of starting fresh.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-./mpbench}
DB=${DB:-results/report.db}
QUICK=${QUICK:-0}
THREADS=${THREADS:-$(nproc)}
if [ "$THREADS" -gt 2 ]; then TLIST="1,2,$THREADS"; elif [ "$THREADS" = 2 ]; then TLIST="1,2"; else TLIST=1; fi

# every SIMD path (scalar references are oracles, not contenders), i8, the peers
KVARS=${KVARS:-'*.avx2*,*.avx512*,*.avxvnni,llamacpp.*'}
# the papers' kernels end to end (seed 000 Table 7's eight, seed 003's int2, Vec-LUT)
EVARS=${EVARS:-'f16.avx2,q4_0.avx512,tmac_int2.avx512,tq1_0.avx512,tq2_0.avx512,tl1_0.avx512.bm32,tl2_0.avx512.bm16,i2_s.avx512,vnni_int2.avx512vnni,vlut_i2.avx512,vlut_i1.avx512'}
LVARS=${LVARS:-'i2_s.avx512,tq1_0.avx512,tq2_0.avx512,tl1_0.avx512.bm32,tl1_1.avx512.bm32,tl2_0.avx512.bm16,tl2_1.avx512.bm16,tmac_int2.avx512,vlut_i2.avx512,vlut_i1.avx512,vnni_int2.avx512vnni,i8.avx512vnni,q8_0.avx512,f16.avx2'}
if [ "$QUICK" = 1 ]; then
    # the best path of each method only (the full run measures every SIMD path)
    KVARS=${KVARS_QUICK:-'f16.avx2,q8_0.avx512,q4_0.avx512,tq1_0.avx512,tq2_0.avx512,i2_s.avx512,tmac_int2.avx512,tl1_0.avx512.bm32,tl1_1.avx512.bm32,tl2_0.avx512.bm16,tl2_1.avx512.bm16,vlut_i2.avx512,vlut_i1.avx512,vnni_int2.avx512vnni,vnni_int1.avx512vnni,i8.avx512vnni,i8.avx2,llamacpp.*'}
    PROBE="--quick"
    GEMV_SHAPES=2560x2560,6912x2560
    GEMM_SHAPES=2560x2560
    RUNOPT="--reps 5 --min-time 0.02"
    NLIST=1,8,32
    E2E_MODELS="bitnetcpp-125m"
    LIMIT_MODEL=bitnetcpp-125m LIMIT_PP=32
    E2E_OPT="--tg 8 --reps 3"
    PP=32
    LOSSLESS="--prompts 10 --tokens 8 --layers 2"
else
    PROBE=""
    GEMV_SHAPES=2560x2560,640x2560,6912x2560,2560x6912
    GEMM_SHAPES=2560x2560,6912x2560
    RUNOPT=""
    NLIST=1,8,32,64,128,256
    E2E_MODELS="bitnetcpp-125m bitnetcpp-350m bitnetcpp-700m bitnetcpp-1.5b"
    LIMIT_MODEL=bitnet-b1.58-2b-4t LIMIT_PP=128
    E2E_OPT="--tg 16 --reps 5"
    PP=64
    LOSSLESS="--prompts 50 --tokens 32 --layers 2"
fi

if [ "${RESUME:-0}" != 1 ]; then
    rm -f "$DB" "$DB-wal" "$DB-shm"
fi
status=0
step() {
    echo "report-data: $*" >&2
    "$@" --db "$DB" --quiet || { echo "report-data: failed (going on): $*" >&2; status=1; }
}
t0=$(date +%s)
step "$BIN" probe $PROBE
for s in ${GEMV_SHAPES//,/ }; do
    step "$BIN" run --variant "$KVARS" --shape "$s" --n 1 --threads "$TLIST" $RUNOPT
done
for s in ${GEMM_SHAPES//,/ }; do
    step "$BIN" run --variant "$KVARS" --shape "$s" --n 128 --threads "$TLIST" $RUNOPT
done
step "$BIN" run --variant 'i2_s.avx512,tq2_0.avx512,tmac_int2.avx512,vlut_i2.avx512,vlut_i1.avx512,vnni_int2.avx512vnni,i8.avx512vnni' \
    --shape 2560x6912 --n "$NLIST" --threads 1 $RUNOPT
for m in $E2E_MODELS; do
    step "$BIN" e2e --model "$m" --variant "$EVARS" --pp 0 $E2E_OPT --threads "$THREADS"
done
m1=${E2E_MODELS%% *}
step "$BIN" e2e --model "$m1" --variant 'vlut_i1.avx512,tq1_0.avx512,vlut_i2.avx512,tq2_0.avx512' \
    --pp "$PP" --tg 0 --reps 3 --threads "$THREADS"
step "$BIN" e2e --model "$m1" --variant 'vlut_i2.avx512,tq2_0.avx512' --pp 0 $E2E_OPT \
    --batch 4 --threads "$THREADS"
# section 2a (issue 17): a real model against its memory limit, with the profile,
# on every thread count of the kernel runs
for t in ${TLIST//,/ }; do
    step "$BIN" e2e --model "$LIMIT_MODEL" --variant vnni_int2.avx512vnni --pp "$LIMIT_PP" --tg 16 \
        --reps 3 --threads "$t" --profile --clock-gate 90
done
step "$BIN" e2e --lossless --model bitnetcpp-125m --variant "$LVARS" $LOSSLESS --threads "$THREADS"

# compaction: the per-repetition samples are not reported (medians, spreads and
# counts are kept in their own columns)
sqlite3 "$DB" "UPDATE results SET times_us = NULL; UPDATE e2e SET times_s = NULL;
               PRAGMA journal_mode = DELETE; VACUUM;" >/dev/null ||
    { echo "report-data: compaction of $DB failed" >&2; status=1; }
rm -f "$DB-wal" "$DB-shm"
"$BIN" report --db "$DB" || status=1
echo "report-data: $(( $(date +%s) - t0 )) s, $(du -k "$DB" | cut -f1) KiB in $DB" >&2
exit $status
