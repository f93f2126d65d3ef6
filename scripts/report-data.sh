#!/usr/bin/env bash
# report-data.sh - every measurement REPORT.md needs, into a fresh database
# (default results/report.db), then REPORT.md and its CSV tables regenerated
# from it: `make report-data` (issue 16, provenance; issue 37, one run per ratio).
# Commit the database with the report: `make report` then reproduces REPORT.md
# byte for byte (but its generation-time line) and the report test checks it.
#
#   1. probe: STREAM-like read (best of several read methods)/copy/triad per
#      thread count, the int8 dot and shuffle peaks, every variant's compute
#      roof at N = 1 and 128 per thread count (section 1, 7, claims)
#   2. kernels on every bitnet-b1.58-2b-4t shape in ONE run per N (N = 1: GEMV,
#      section 7, claims; N = 128: section 4, claims) on 1 and 2 threads: every
#      SIMD variant this CPU runs, the int8-weight i8 variants, and llama.cpp's
#      own kernels (llamacpp.*, section 8, when `make peers` fetched them), so a
#      ratio's two sides share a run
#   3. throughput against N on one shape (section 6); the Vec-LUT ablation's
#      cumulative settings (section 5)
#   4. end to end: parallel decoding (first: its single-sequence rows are then
#      not the ones section 2 shows), decode of whole bitnetcpp-* models with the
#      papers' kernels (section 2, seed 004's sizes as far as time allows), prefill
#      on 1 and 2 threads for the Vec-LUT claims
#   4a. the memory limit (section 2a): bitnet-b1.58-2b-4t (QUICK: bitnetcpp-125m)
#      with the best decode variant, pp and tg16, --profile, on 1 and 2 threads
#   5. lossless: bitnetcpp-125m (K = 768 and 3072, multiples of the 256-weight
#      TQ1_0/TQ2_0 block, so they are measured, not skipped), all 11 layers, 64
#      tokens, exact match and the logit difference (issue 37: with 2 layers and
#      32 tokens every lossy variant matched every prompt).  The full step
#      costs ~13 s of one core per prompt (AVX2 paths): about 2 minutes on 2
#      idle threads; 8.5 minutes measured on 2 threads under a load of 5-10
#   6. compaction: raw per-repetition samples the report does not print are
#      dropped and the file vacuumed (kept small enough to commit)
#
# Every variant list names the best path of each method THIS CPU runs
# (AVX-512 VNNI, else AVX-VNNI, else AVX2): the same script on an AVX2-only
# machine measures the AVX2 paths instead of skipping the method.
# QUICK=1 shrinks every step (one shape, few repetitions, the smallest model):
# minutes, for the committed test database.  Run it on a quiet machine: the
# figures are only as good as the machine was idle.  RESUME=1 keeps an existing
# database (every command resumes what it already stored) instead of starting
# fresh.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-./mpbench}
DB=${DB:-results/report.db}
QUICK=${QUICK:-0}
THREADS=${THREADS:-$(nproc)}
if [ "$THREADS" -gt 2 ]; then TLIST="1,2,$THREADS"; elif [ "$THREADS" = 2 ]; then TLIST="1,2"; else TLIST=1; fi

WHO=report-data
# shellcheck source=scripts/best-paths.sh
. scripts/best-paths.sh  # after the cd to the repository

# every SIMD path (scalar references are oracles, not contenders), i8, the peers
KVARS=${KVARS:-'*.avx2*,*.avx512*,*.avxvnni,llamacpp.*'}
# llama.cpp itself end to end (issue 39: libllama on a GGUF file of the same
# seeded weights, kept in the weight cache): the baselines the papers' tables used
LLAMA_E2E='llamacpp.f16,llamacpp.q4_0,llamacpp.tq1_0,llamacpp.tq2_0'
# the papers' kernels end to end (seed 000 Table 7's eight, seed 003's int2, Vec-LUT)
EVARS=${EVARS:-$(list f16 q4_0 tmac_int2 tq1_0 tq2_0 tl1_0.bm32 tl2_0.bm16 i2_s vnni_int2 vlut_i2 vlut_i1),$LLAMA_E2E}
# the larger models: seed 004's I2_S against the F16 baseline, with TQ2_0 and TL2_0
BVARS=${BVARS:-$(list f16 tq2_0 tl2_0.bm16 i2_s vnni_int2),llamacpp.f16,llamacpp.tq2_0}
LVARS=${LVARS:-$(list i2_s tq1_0 tq2_0 tl1_0.bm32 tl1_1.bm32 tl2_0.bm16 tl2_1.bm16 tmac_int2 vlut_i2 vlut_i1 vnni_int2 i8 q8_0 f16)}
NVARS=$(list i2_s tq2_0 tmac_int2 vlut_i2 vlut_i1 vnni_int2 i8)
PPVARS=$(list vlut_i1 tq1_0 vlut_i2 tq2_0 vnni_int2),llamacpp.tq1_0,llamacpp.tq2_0
BATCHVARS=$(list vlut_i2 tq2_0),llamacpp.tq2_0
BESTDEC=$(list vnni_int2 tl2_0.bm16),llamacpp.tq2_0,llamacpp.tq1_0,llamacpp.f16
VLUT=$(best vlut_i2)
KMODEL=bitnet-b1.58-2b-4t
if [ "$QUICK" = 1 ]; then
    # the best path of each method only (the full run measures every SIMD path)
    KVARS=${KVARS_QUICK:-$(list f16 q8_0 q4_0 tq1_0 tq2_0 i2_s tmac_int2 tl1_0.bm32 tl1_1.bm32 tl2_0.bm16 tl2_1.bm16 vlut_i2 vlut_i1 vnni_int2 vnni_int1 i8),i8.avx2,llamacpp.*}
    PROBE="--quick"
    KSHAPES="--shape 2560x2560"
    RUNOPT="--reps 5 --min-time 0.02"
    NLIST=1,8,32
    E2E_MODELS="bitnetcpp-125m"
    BIG_MODELS=""
    LIMIT_MODEL=bitnetcpp-125m LIMIT_PP=32
    E2E_OPT="--tg 8 --reps 3"
    PP=32
    LOSSLESS="--prompts 2 --tokens 64"
    LIMIT_MODELS=""
    TRAINED_LOSSLESS="--prompts 4 --tokens 16"
    TRAINED_PPL=0
else
    PROBE=""
    KSHAPES="--model $KMODEL"
    RUNOPT=""
    NLIST=1,8,32,64,128,256
    E2E_MODELS="bitnetcpp-125m bitnetcpp-350m bitnetcpp-700m bitnetcpp-1b bitnetcpp-1.5b"
    # seed 004's sizes through 30B (issue 39: as far as fits in memory here):
    # MODEL[:F16_LAYERS], the F16 rows (ours and llama.cpp's) on the first
    # F16_LAYERS layers where the whole model in 16 bits does not fit (marked
    # partial in the report), the ternary rows always on every layer
    BIG_MODELS=${BIG_MODELS:-"bitnetcpp-3.8b bitnetcpp-7b bitnetcpp-13b:24 bitnetcpp-30b:16"}
    LIMIT_MODEL=bitnet-b1.58-2b-4t LIMIT_PP=128
    # issue 39's table: the second model, its F16 rows on 16 of 32 layers
    LIMIT_MODELS=${LIMIT_MODELS:-"llama3-8b-1.58:16"}
    TRAINED_LOSSLESS="--prompts 100 --tokens 64"
    TRAINED_PPL=1
    E2E_OPT="--tg 16 --reps 5"
    PP=64
    LOSSLESS="--prompts 10 --tokens 64"
fi

if [ "${RESUME:-0}" != 1 ]; then
    rm -f "$DB" "$DB-wal" "$DB-shm"
fi
status=0
CACHE=${CACHE:-$(dirname "$DB")/weight-cache}
mkdir -p "$CACHE"
step() {
    echo "report-data: $*" >&2
    "$@" --db "$DB" --quiet || { echo "report-data: failed (going on): $*" >&2; status=1; }
}
# e2e steps keep llama.cpp's GGUF files (and our packed weights) between runs
e2e() { step "$BIN" e2e --weight-cache "$CACHE" "$@"; }
t0=$(date +%s)
step "$BIN" probe $PROBE
# (with this machine's tuned config, best-paths.sh's TUNED, where it has one)
for n in 1 128; do
    step "$BIN" run --variant "$KVARS" $KSHAPES --n $n --threads "$TLIST" $TUNED $RUNOPT
done
step "$BIN" run --variant "$NVARS" --shape 2560x6912 --n "$NLIST" --threads 1 $TUNED $RUNOPT
# the ablation (section 5): seed 001 Fig. 11's steps as cumulative settings of one
# kernel: none, the tile-contiguous layout, + streamed lookup and int16 accumulation,
# + topological precompute
for p in stream=0,topo=0,hier=0,tcl=0 stream=0,topo=0,hier=0,tcl=1 stream=1,topo=0,hier=1,tcl=1 \
         stream=1,topo=1,hier=1,tcl=1; do
    step "$BIN" run --variant "$VLUT" --shape 2560x6912 --n 128 --threads 1 --params "$p" $RUNOPT
done
m1=${E2E_MODELS%% *}
# parallel decoding first: its own tgN rows (batch 1, the speed-up's reference)
# are then older than the model loop's, which section 2 shows
e2e --model "$m1" --variant "$BATCHVARS" --pp 0 $E2E_OPT --batch 4 --threads "$THREADS"
for m in $E2E_MODELS; do
    e2e --model "$m" --variant "$EVARS" --pp 0 $E2E_OPT --threads "$THREADS"
done
# the big models' packed weights and GGUF files are not kept (30B's would fill
# the disk): each run writes them to TMPDIR and removes them
F16VARS=$(list f16),llamacpp.f16
BTERN=$(sed 's/[^,]*f16[^,]*,\{0,1\}//g; s/,$//' <<<"$BVARS")
for mm in $BIG_MODELS; do
    m=${mm%%:*} fl=${mm#*:}
    if [ "$fl" = "$mm" ]; then
        step "$BIN" e2e --model "$m" --variant "$BVARS" --pp 0 --tg 8 --reps 3 --threads "$THREADS"
    else
        step "$BIN" e2e --model "$m" --variant "$BTERN" --pp 0 --tg 8 --reps 3 --threads "$THREADS"
        step "$BIN" e2e --model "$m" --variant "$F16VARS" --layers "$fl" --pp 0 --tg 8 --reps 3 \
            --threads "$THREADS"
    fi
done
for t in ${TLIST//,/ }; do
    e2e --model "$m1" --variant "$PPVARS" --pp "$PP" --tg 0 --reps 3 --threads "$t"
done
# section 2a (issue 17): a real model against its memory limit, with the profile,
# on every thread count of the kernel runs
for t in ${TLIST//,/ }; do
    e2e --model "$LIMIT_MODEL" --variant "$BESTDEC" --pp "$LIMIT_PP" --tg 16 \
        --reps 3 --threads "$t" --profile --clock-gate 90
    # issue 39: the 8-bit head (integer dot products on a Q8_0 head) beside the
    # F16 head's rows just measured, same variants, same threads
    e2e --model "$LIMIT_MODEL" --variant "$(list vnni_int2),llamacpp.tq2_0" --pp 0 --tg 16 \
        --reps 3 --threads "$t" --lm-head q8_0 --clock-gate 90
done
# issue 39's second model: its ternary rows on every layer, its F16 rows partial
for mm in $LIMIT_MODELS; do
    m=${mm%%:*} fl=${mm#*:}
    for t in ${TLIST//,/ }; do
        e2e --model "$m" --variant "$(sed 's/,llamacpp.f16//' <<<"$BESTDEC")" \
            --pp "$LIMIT_PP" --tg 16 --reps 3 --threads "$t" --clock-gate 90
        e2e --model "$m" --variant "$F16VARS" --layers "$fl" --pp "$LIMIT_PP" \
            --tg 16 --reps 3 --threads "$t" --clock-gate 90
    done
done
step "$BIN" e2e --lossless --model bitnetcpp-125m --variant "$LVARS" $LOSSLESS --threads "$THREADS"
# issue 42: the trained model (models/trained/): seed 004 Table 7 on real
# weights (text prompts from the held-out split), and bits per byte per variant
TRAINED=models/trained/ternary.gguf HELDOUT=models/trained/heldout.txt
step "$BIN" e2e --gguf "$TRAINED" --lossless --prompt-text "$HELDOUT" --variant "$LVARS" \
    $TRAINED_LOSSLESS --threads "$THREADS"
if [ "$TRAINED_PPL" = 1 ]; then
    step "$BIN" e2e --gguf "$TRAINED" --ppl "$HELDOUT" --variant "$LVARS" --threads "$THREADS"
fi

# compaction: the per-repetition samples are not reported (medians, spreads and
# counts are kept in their own columns)
sqlite3 "$DB" "UPDATE results SET times_us = NULL; UPDATE e2e SET times_s = NULL;
               PRAGMA journal_mode = DELETE; VACUUM;" >/dev/null ||
    { echo "report-data: compaction of $DB failed" >&2; status=1; }
rm -f "$DB-wal" "$DB-shm"
"$BIN" report --db "$DB" || status=1
echo "report-data: $(( $(date +%s) - t0 )) s, $(du -k "$DB" | cut -f1) KiB in $DB" >&2
exit $status
