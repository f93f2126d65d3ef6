#!/usr/bin/env bash
# check-layers.sh - the dependency rules of DESIGN.md, checked on the source
# tree (run by `make test`; exits 1 naming every violation):
#   1. harness/ reaches kernels only through the registry (variants/) and the
#      public kernel interface: it may include kernels/mp_kernel.h and the shared
#      numerics in kernels/common/, never a kernel family's header (the
#      machine probe's loops too come through the registry).
#   2. tuner/ depends on nothing in harness/ (it sees a cost-function interface).
#   3. Only the store (harness/store/) speaks SQL: no sqlite3 API and no SQL
#      statement text anywhere else in harness/, tuner/, variants/, kernels/.
#   4. No command file provides functions to another: mp_cli.h declares only
#      the mp_cmd_* entry points.
#   5. Kernels contain no timing: no clock reads in kernels/.
set -u
cd "$(dirname "$0")/.."
bad=0
say() { echo "check-layers: $*"; bad=1; }

# 1
while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"${line#*:}")
    case "$inc" in
    */kernels/mp_kernel.h | */kernels/common/*) ;;
    *kernels/*) say "$file includes kernel family header $inc (use the registry)" ;;
    esac
done < <(grep -rnoE '#include "[^"]*kernels/[^"]*"' harness | sed -E 's/:[0-9]+:/:/')

# 2
grep -rnE '#include "[^"]*harness/' tuner && say "tuner/ includes harness/ (see above)"

# 3
sqlre='sqlite3|"[[:space:]]*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|ATTACH|DETACH|BEGIN|COMMIT|ROLLBACK|PRAGMA|VACUUM)[[:space:]]'
for f in $(grep -rlE "$sqlre" harness tuner variants kernels --include='*.c' --include='*.h'); do
    case "$f" in
    harness/store/*) ;;
    *) say "$f speaks SQL outside the store: $(grep -nE "$sqlre" "$f" | head -2 | tr '\n' ' ')" ;;
    esac
done

# 4
extra=$(grep -E '^[a-z].*\(' harness/cli/mp_cli.h | grep -v 'mp_cmd_' || true)
[ -n "$extra" ] && say "harness/cli/mp_cli.h declares non-command functions: $extra"

# 5
grep -rnE 'clock_gettime|gettimeofday|rdtsc|mp_now\(' kernels && say "kernels/ read a clock (see above)"

if [ $bad = 0 ]; then echo "check-layers: ok (includes, tuner, SQL, commands, kernel timing)"; fi
exit $bad
