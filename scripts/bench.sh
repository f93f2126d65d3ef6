#!/usr/bin/env bash
# bench.sh - `make bench` (issue 41): is each method at the limit on this
# machine?  Into a fresh temporary database (kept only when BENCH_DB names it):
#
#   1. `mpbench probe` (--quick with QUICK=1): the read roof per thread count and the compute
#      roof (ceiling) of every variant measured below, at N = 1 and 128;
#   2. `mpbench run` on every bitnet-b1.58-2b-4t and llama3-8b-1.58 shape (one
#      run per model of MODELS), N = 1 and 128, on 1 and
#      2 threads (capped at nproc), clock-gated at 90%: the best SIMD path of
#      each method this CPU runs (AVX-512 VNNI, else AVX-512, else AVX-VNNI,
#      else AVX2: report-data.sh's rule), and llamacpp.tq2_0 when `make peers`
#      fetched it;
#   3. `mpbench report --shares`: per shape, N and thread count, the fastest
#      variant and each method's best against its roof (N = 1: GB/s of the read
#      roof; N = 128: GOPS of the variant's compute roof and of the int8 dot
#      peak x threads), and per N the best variant's worst share against the
#      targets (N = 1: 92% of the read roof; N = 128: 85% of the int8 peak).
#
# A tuned config for this machine (results/tuned/FINGERPRINT.conf) is used
# (`run --tuned`: each key it tunes with its parameters, the others with their
# defaults); the script says whether there is one.  Run it on a quiet
# machine: a share is only as good as the machine was idle.  Environment: BIN
# (default ./mpbench), BENCH_DB (keep the database
# there; an existing one is refused), THREADS (default nproc), METHODS (the
# method list below), PEERS (default llamacpp.tq2_0; empty: none), MODELS (the
# models whose shapes run measures, default the two of issue 41's targets),
# QUICK=1 (one shape, few repetitions, one thread: the
# test's mode, minutes -> seconds).  Exit: 0; 1 when a point failed (the
# others are still shown); else the first failing step's code.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-./mpbench}
QUICK=${QUICK:-0}
THREADS=${THREADS:-$(nproc)}
[ "$THREADS" -gt 2 ] && THREADS=2
if [ "$THREADS" -ge 2 ]; then TLIST=1,2; else TLIST=1; fi
METHODS=${METHODS:-"f16 q8_0 q4_0 tq1_0 tq2_0 i2_s tmac_int2 tl1_0.bm32 tl1_1.bm32 tl2_0.bm16 tl2_1.bm16 vlut_i2 vlut_i1 vnni_int2 vnni_int1 i8"}

[ -x "$BIN" ] || { echo "bench: no $BIN (run make first)" >&2; exit 2; }
WHO=bench
# shellcheck source=scripts/best-paths.sh
. scripts/best-paths.sh  # after the cd to the repository
# shellcheck disable=SC2086
VARS=$(list $METHODS)
# llama.cpp's own TQ2_0 kernel beside ours, when `make peers` fetched it
PEERS=${PEERS-llamacpp.tq2_0}
for p in ${PEERS//,/ }; do
    grep -qx -- "$p" <<<"$AVAIL" && VARS="$VARS${VARS:+,}$p"
done
if [ -z "$VARS" ]; then echo "bench: none of the methods ($METHODS) runs on this CPU" >&2; exit 2; fi

if [ "$QUICK" = 1 ]; then
    MODELS="" SHAPES="--shape 2560x2560" RUNOPT="--reps 3 --min-time 0.01" TLIST=1
    CEIL="--ceiling-time 0.05" PROBEQ=--quick
else
    # the whole probe: --quick's 256 MiB read on two threads gave 29.4 GB/s on
    # the AMD EPYC AVX2 VM while vnni_int2.avx2 rows read 35.3 (the full probe
    # of results/report.db: 40.6), a roof its rows exceeded
    MODELS=${MODELS:-"bitnet-b1.58-2b-4t llama3-8b-1.58"} SHAPES="" RUNOPT="" CEIL="" PROBEQ=""
fi
GATE=""
"$BIN" run --help 2>&1 | grep -q -- '--clock-gate' && GATE="--clock-gate 90"

if [ -n "${BENCH_DB:-}" ]; then
    DB=$BENCH_DB
    if [ -e "$DB" ]; then echo "bench: BENCH_DB=$DB exists: give a new file" >&2; exit 2; fi
    TMP=""
else
    TMP=$(mktemp -d /tmp/mpbench-bench-XXXXXX) || exit 3
    DB=$TMP/bench.db
    trap 'rm -rf "$TMP"' EXIT
fi

# A step that fails ends the script with its code, but for a run whose only
# failure is a point that failed (exit 1: its rerun line is printed): the
# other points' shares still mean something, and the exit code stays 1.
status=0
step() {
    echo "bench: $*" >&2
    "$@"
    local rc=$?
    [ "$rc" = 0 ] && return
    echo "bench: failed (exit $rc): $*" >&2
    [ "$rc" = 1 ] && [ "$2" = run ] && { status=1; return; }
    exit "$rc"
}
# shellcheck disable=SC2086
step "$BIN" probe $PROBEQ --threads "$TLIST" --ceiling-variants "$VARS" --ceiling-n 1,128 $CEIL \
    --db "$DB" --quiet >/dev/null
run_on() { # the shapes given (--shape S or --model M)
    # shellcheck disable=SC2086
    step "$BIN" run --variant "$VARS" "$@" --n 1,128 --threads "$TLIST" $GATE $TUNED $RUNOPT \
        --db "$DB" --quiet >/dev/null
}
if [ -n "$SHAPES" ]; then
    # shellcheck disable=SC2086
    run_on $SHAPES
else
    for m in $MODELS; do run_on --model "$m"; done # run takes one --model
fi
"$BIN" report --shares --db "$DB"
rc=$?
[ -n "${BENCH_DB:-}" ] && echo "bench: the database is kept in $DB" >&2
[ "$rc" = 0 ] && rc=$status
exit "$rc"
