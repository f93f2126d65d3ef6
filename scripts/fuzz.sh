#!/usr/bin/env bash
# fuzz.sh TARGET... - runs each libFuzzer target of `make fuzz` for FUZZ_SECONDS
# (default 30) from a scratch copy of its seed corpus, then prints one table:
# target, executions, exec/s, coverage (libFuzzer's cov: edges), new corpus
# inputs, crashes.  A crash (or leak, or timeout) input is kept in
# $FUZZ_BUILD/crashes/TARGET/; the script exits 1 when any target crashed.
set -u
build=${FUZZ_BUILD:-build-fuzz}
secs=${FUZZ_SECONDS:-30}
rows=()
bad=0
for t in "$@"; do
    bin=$build/fuzz-$t
    work=$build/corpus/$t
    crashes=$build/crashes/$t
    rm -rf "$work" "$crashes" && mkdir -p "$work" "$crashes"
    cp tests/fuzz/corpus/$t/* "$work"/ 2>/dev/null
    log=$build/fuzz-$t.log
    # -rss_limit_mb: a GGUF or database claiming huge sizes must be refused, not allocated
    "$bin" "$work" -max_total_time="$secs" -print_final_stats=1 -rss_limit_mb=2048 \
        -timeout=10 -max_len=65536 -artifact_prefix="$crashes/" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    n=$(ls "$crashes" | wc -l)
    new=$(( $(ls "$work" | wc -l) - $(ls tests/fuzz/corpus/$t | wc -l) ))
    rate=$(( ${execs:-0} / (secs > 0 ? secs : 1) ))
    if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
        bad=1
        echo "fuzz-$t: exit $rc, $n crash input(s) in $crashes (log: $log)" >&2
        grep -m3 -E 'ERROR|SUMMARY|runtime error' "$log" >&2
    fi
    rows+=("$(printf '%-8s %12s %9s %8s %8s %8s' "$t" "${execs:-?}" "$rate" "${cov:-?}" "$new" "$n")")
done
printf '%-8s %12s %9s %8s %8s %8s\n' target executions exec/s cov new_inp crashes
printf '%s\n' "${rows[@]}"
echo "($secs s per target)"
exit $bad
