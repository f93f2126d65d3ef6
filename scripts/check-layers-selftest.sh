#!/usr/bin/env bash
# check-layers-selftest.sh - scripts/check-layers.sh can fail: on a scratch copy
# of the tree (harness, tuner, variants, kernels) it passes, then one violation
# of each rule is planted in turn and the check must exit 1 with a line naming
# that rule; the copy is restored between plants.  Run by `make test`.
set -u
cd "$(dirname "$0")/.."
scratch=$(mktemp -d /tmp/check-layers.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
cp -r harness tuner variants kernels "$scratch"/
mkdir -p "$scratch/scripts" && cp scripts/check-layers.sh "$scratch/scripts/"
check() { "$scratch/scripts/check-layers.sh" --root "$scratch" --build "$scratch/nobuild"; }
if ! out=$(check); then
    echo "check-layers-selftest: the scratch copy fails before any plant:"; echo "$out"; exit 1
fi
bad=0 n=0
# plant RULE FILE LINE: appends LINE to FILE (created when missing), checks, restores
plant() {
    local rule=$1 file=$scratch/$2 line=$3 existed=0 out
    [ -f "$file" ] && existed=1 && cp "$file" "$scratch/saved"
    echo "$line" >>"$file"
    out=$(check 2>&1)
    if [ $? = 1 ] && grep -q "^check-layers: $rule: " <<<"$out"; then
        n=$((n + 1))
    else
        echo "check-layers-selftest: '$line' in $2 was not caught as '$rule':"; echo "$out"; bad=1
    fi
    if [ $existed = 1 ]; then mv "$scratch/saved" "$file"; else rm -f "$file"; fi
}
plant folders harness/store/store.c '#include "../engine/mp_engine.h"'
plant folders harness/stray.c '/* a file outside the folders */'
plant kernels harness/engine/measure.c '#include "../../kernels/vnni/vnni.h"'
plant kernels harness/cli/cli-run.c '#include "../kernels/vnni/vnni.h"'
plant tuner tuner/search.c '#include "../harness/core/mp_core.h"'
plant sql harness/engine/plan.c 'static const char *q = "SELECT 1";'
plant commands harness/report/report-out.c 'int mp_cmd_stray(int argc, char **argv) { return argc; }'
plant commands harness/cli/cli-run.c '#include "cli-private.h"'
plant commands harness/cli/mp_cli.h 'int mp_list_helper(int argc);'
plant clocks kernels/i2_s/i2s-scalar.c 'static double t(void) { return mp_now(); }'

# cycles: two headers of core/ that include each other
echo '#include "loop-b.h"' >"$scratch/harness/core/loop-a.h"
plant cycles harness/core/loop-b.h '#include "loop-a.h"'
rm -f "$scratch/harness/core/loop-a.h"

# calls: objects of a scratch build, core/ calling a function of report/
cc=${CC:-cc}
mkdir -p "$scratch/build/harness/core" "$scratch/build/harness/report"
echo 'void mp_rep_up(void); void mp_core_down(void) { mp_rep_up(); }' >"$scratch/harness/core/up.c"
echo 'void mp_rep_up(void) {}' >"$scratch/harness/report/up.c"
$cc -c "$scratch/harness/core/up.c" -o "$scratch/build/harness/core/up.o" &&
    $cc -c "$scratch/harness/report/up.c" -o "$scratch/build/harness/report/up.o" || exit 1
if out=$("$scratch/scripts/check-layers.sh" --root "$scratch" --build "$scratch/build" 2>&1); then
    echo "check-layers-selftest: core/ calling report/ was not caught"; bad=1
elif ! grep -q '^check-layers: calls: harness/core/up.c calls mp_rep_up of harness/report/up.c' <<<"$out"; then
    echo "check-layers-selftest: core/ calling report/ not named as such:"; echo "$out"; bad=1
else
    n=$((n + 1))
fi

[ $bad = 0 ] && echo "check-layers-selftest: ok ($n planted violations caught, each by its rule)"
exit $bad
