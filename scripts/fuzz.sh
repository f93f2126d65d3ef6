#!/usr/bin/env bash
# fuzz.sh TARGET... - runs each libFuzzer target of `make fuzz` from a scratch
# copy of its seed corpus, then prints one table: target, executions, exec/s,
# coverage (libFuzzer's cov: edges), new corpus inputs, crashes, seconds.
#   FUZZ_SECONDS=N  each target runs N seconds (default 30; `make fuzz`)
#   FUZZ_RUNS=N     each target runs N executions instead, however long that
#                   takes (`make fuzz-long`, 1000000 by default there)
# A crash (or leak, or timeout) input is kept in $FUZZ_BUILD/crashes/TARGET/;
# the script exits 1 when any target crashed.  tests/fuzz/TARGET.dict, when it
# exists, is the target's dictionary.  The cli target prints what the commands
# print: its stdout and stderr are closed (-close_fd_mask=3; libFuzzer keeps its
# own and the sanitizers' reports on a copy of stderr).
set -u
build=${FUZZ_BUILD:-build-fuzz}
secs=${FUZZ_SECONDS:-30}
runs=${FUZZ_RUNS:-}
rows=()
bad=0
for t in "$@"; do
    bin=$build/fuzz-$t
    work=$build/corpus/$t
    crashes=$build/crashes/$t
    rm -rf "$work" "$crashes" && mkdir -p "$work" "$crashes"
    cp tests/fuzz/corpus/$t/* "$work"/ 2>/dev/null
    log=$build/fuzz-$t.log
    extra=()
    [ -f tests/fuzz/$t.dict ] && extra+=(-dict=tests/fuzz/$t.dict)
    [ "$t" = cli ] && extra+=(-close_fd_mask=3)
    if [ -n "$runs" ]; then
        extra+=(-runs="$runs")
    else
        extra+=(-max_total_time="$secs")
    fi
    # -rss_limit_mb: a GGUF or database claiming huge sizes must be refused, not allocated
    t0=$(date +%s.%N)
    "$bin" "$work" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -artifact_prefix="$crashes/" "${extra[@]}" >"$log" 2>&1
    rc=$?
    el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # executions over the whole wall time of the run, start-up included
    # (libFuzzer's own average divides by whole seconds: 0 for a run under one)
    rate=$(awk -v n="${execs:-0}" -v s="$el" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    n=$(ls "$crashes" | wc -l)
    new=$(( $(ls "$work" | wc -l) - $(ls tests/fuzz/corpus/$t | wc -l) ))
    if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
        bad=1
        echo "fuzz-$t: exit $rc, $n crash input(s) in $crashes (log: $log)" >&2
        grep -m3 -E 'ERROR|SUMMARY|runtime error|fuzz-cli:' "$log" >&2
    fi
    rows+=("$(printf '%-8s %12s %9s %8s %8s %8s %9.1f' "$t" "${execs:-?}" "${rate:-?}" \
        "${cov:-?}" "$new" "$n" "$el")")
done
printf '%-8s %12s %9s %8s %8s %8s %9s\n' target executions exec/s cov new_inp crashes seconds
printf '%s\n' "${rows[@]}"
if [ -n "$runs" ]; then
    echo "(-runs=$runs per target)"
else
    echo "($secs s per target)"
fi
exit $bad
