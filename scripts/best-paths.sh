# best-paths.sh - sourced by scripts/report-data.sh and scripts/bench.sh: the
# most specialized SIMD path of each method this CPU runs (AVX-512 VNNI, else
# AVX-512, else AVX-VNNI, else AVX2), from `$BIN list variants`, and this
# machine's tuned config (TUNED).  WHO names the script in its messages.
AVAIL=$("$BIN" list variants 2>/dev/null | awk 'NF > 1 && $0 !~ /unavailable/ {print $1}')
# best METHOD[.SUFFIX]: the most specialized path of the method this CPU runs
best() {
    local m=${1%%.*} sfx=${1#*.} isa v
    [ "$sfx" = "$1" ] && sfx=""
    for isa in avx512vnni avx512 avxvnni avx2; do
        v="$m.$isa${sfx:+.$sfx}"
        if grep -qx -- "$v" <<<"$AVAIL"; then echo "$v"; return; fi
    done
    echo "${WHO:-mpbench}: no SIMD path of $1 on this CPU: left out" >&2
}
# list METHOD...: their best paths, comma-separated
list() { local out="" x; for x in "$@"; do x=$(best "$x"); [ -n "$x" ] && out="$out${out:+,}$x"; done; echo "$out"; }
# TUNED: "--tuned results/tuned/FINGERPRINT.conf" when this machine has one
# (`mpbench run` then measures each key with the parameters tuned for it and
# the others with their defaults), else empty; said on stderr either way
FP=$("$BIN" list machine --db /nonexistent 2>/dev/null | awk '$1 == "fingerprint" {print $2}')
TUNED=""
if [ -n "$FP" ] && [ -f "results/tuned/$FP.conf" ]; then
    TUNED="--tuned results/tuned/$FP.conf"
    echo "${WHO:-mpbench}: using the tuned parameters of results/tuned/$FP.conf" >&2
else
    echo "${WHO:-mpbench}: no tuned config for this machine (results/tuned/${FP:-?}.conf):" \
         "every variant runs with its defaults" >&2
fi
