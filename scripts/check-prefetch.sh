#!/usr/bin/env bash
# check-prefetch.sh BUILD - every x86 kernel object whose source asks for a
# software prefetch (directly or through a header it includes) holds at least one
# prefetch instruction.  GCC 12 may delete a prefetch without a word: it counts
# __builtin_prefetch as free of side effects, so a call of an out-of-line wrapper
# around it is dead code to the optimizer (kernels/common/mp_x86.h).  TQ1_0 and
# F16 (AVX-512) ran 12-21% and 5-9% slower for it, with every test passing.
# Run by `make test`; exits 1 naming each object that lost its prefetches.
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
bad=0 checked=0
call='(_mm_prefetch|__builtin_prefetch|mp_x86_prefetch|mp_x86_prefetch_unit)\('
# $1 = a source or header, $2 = levels of includes still to read: does it, or a
# local header it includes, call a prefetch?  mp_x86.h defines the helper and
# calls none.
asks() {
    local f=$1 depth=$2 inc
    [ "$(basename "$f")" = mp_x86.h ] && return 1
    grep -qE "$call" "$f" && return 0
    [ "$depth" -gt 0 ] || return 1
    for inc in $(sed -nE 's/^#include "([^"]+)".*/\1/p' "$f"); do
        [ -f "$(dirname "$f")/$inc" ] && asks "$(dirname "$f")/$inc" $((depth - 1)) && return 0
    done
    return 1
}
for src in kernels/*/*-avx2.c kernels/*/*-avx512.c kernels/*/*-avx512vnni.c kernels/*/*-avxvnni.c; do
    [ -f "$src" ] || continue
    obj="$build/${src%.c}.o"
    [ -f "$obj" ] || continue
    asks "$src" 2 || continue
    checked=$((checked + 1))
    n=$(objdump -d --no-show-raw-insn "$obj" | grep -cE '\sprefetch')
    if [ "$n" = 0 ]; then
        echo "check-prefetch: $obj: its source prefetches, the object has no prefetch instruction"
        bad=1
    fi
done
[ $bad = 0 ] && echo "check-prefetch: ok ($checked objects that prefetch)"
exit $bad
