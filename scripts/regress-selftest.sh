#!/usr/bin/env bash
# regress-selftest.sh - the regression gate must not be flaky: five runs of
# `make regress` on unchanged code must pass, and one with the test-only canary
# slowed by 25% (MPBENCH_TEST_SLOWDOWN=25) must fail.  Timing-based, so it runs
# alone (never beside the Criterion tests on this 2-core machine).
#
# The gate is tested against a baseline swept here, first, on this machine: what
# is tested is the gate (its statistics, its noise tolerance, its detection),
# and that must hold on whatever machine CI lands on, while the committed
# baseline (results/baseline/regress.db) holds runs of the machine kinds it was
# recorded on only (`make regress` compares with those).
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
base=$(mktemp -d /tmp/mpbench-regress-base-XXXXXX)
trap 'rm -rf "$base"' EXIT
if ! make -s regress-baseline REGRESS_BASELINE="$base/regress.db" > "$base/sweep.log" 2>&1; then
    echo "regress-selftest: the baseline sweep failed:"
    tail -5 "$base/sweep.log"
    exit 1
fi
export REGRESS_BASE="$base/regress.db"
for i in 1 2 3 4 5; do
    if make -s regress > /tmp/mpbench-regress-$i.log 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "regress-selftest: unchanged code flagged on run $i:"
        grep -E "REGRESSION|regressions" /tmp/mpbench-regress-$i.log
    fi
done
if MPBENCH_TEST_SLOWDOWN=25 make -s regress > /tmp/mpbench-regress-slow.log 2>&1; then
    fail=$((fail + 1))
    echo "regress-selftest: a 25% slowdown of the canary was not flagged"
else
    if grep -q "REGRESSION" /tmp/mpbench-regress-slow.log; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "regress-selftest: make regress failed without flagging a regression:"
        tail -5 /tmp/mpbench-regress-slow.log
    fi
fi
echo "regress-selftest: $pass passed, $fail failed"
[ "$fail" = 0 ]
