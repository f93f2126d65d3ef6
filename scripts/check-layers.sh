#!/usr/bin/env bash
# check-layers.sh [--root DIR] [--build DIR] - the dependency rules of DESIGN.md
# (Layout), checked on the source tree and, where a build exists, on its
# objects.  Run by `make test`; exits 1 naming every violation, each line
# starting with the rule's name.  --root checks another tree (the self-test,
# scripts/check-layers-selftest.sh, plants violations in a scratch copy);
# --build names the objects' folder (default ROOT/build; none: calls unchecked).
#
# harness/ is one folder per subsystem, in this order, lowest first:
#     core < store < e2e < gguf < engine < report < cli
# core:   statuses, errors, results and their keys, models, machine, pool, parsers
# store:  the SQLite database (the only SQL)          needs core
# e2e:    the decoder and its SIMD                     needs core
# gguf:   model files (reads, writes, runs llama.cpp)  needs e2e (synthetic weights)
# engine: plan -> measure -> store, probe, ceilings,   needs store, e2e
#         counters, tune, e2e measurement
# report: REPORT.md, plots, tables printed             needs engine, store
# cli:    the commands, thin                           needs everything
#
# Rules:
#   folders   a file of harness/F includes headers of F or of folders below F only
#   cycles    no include loop between files (tsort over the include graph)
#   calls     (with a build) an object of harness/F calls no function defined in
#             a folder above F, and the objects call each other in no loop
#             across folders
#   sql       only harness/store/ speaks SQL (sqlite3 API, SQL statement text)
#   commands  only harness/cli/ defines mp_cmd_*; mp_cli.h declares nothing
#             else; a command file includes no other cli/ header than mp_cli.h
#             and the option table every command parses with (mp_options.h)
#   kernels   harness/ reaches kernels only through kernels/mp_kernel.h,
#             kernels/common/ and the registry (variants/)
#   tuner     tuner/ includes nothing of harness/
#   clocks    kernels/ read no clock
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=
while [ $# -gt 0 ]; do
    case "$1" in
    --root) root=$(cd "$2" && pwd); shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "usage: check-layers.sh [--root DIR] [--build DIR]" >&2; exit 2 ;;
    esac
done
cd "$root" || exit 2
[ -z "$build" ] && build=build
bad=0
say() { echo "check-layers: $*"; bad=1; }

order=(core store e2e gguf engine report cli)
rank() { # rank of harness/F/..., -1 when not a harness folder
    local i
    for i in "${!order[@]}"; do
        case "$1" in harness/"${order[$i]}"/*) echo "$i"; return ;; esac
    done
    echo -1
}

# Every quoted include of harness/, tuner/, variants/, kernels/ as "file target"
# with the target's path resolved from the tree's root.
includes() {
    grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]+"' harness tuner variants kernels \
        --include='*.c' --include='*.h' |
    awk -F: '{
        file = $1; inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
        dir = file; sub(/\/[^\/]*$/, "", dir)
        n = split(dir "/" inc, part, "/"); m = 0
        for (i = 1; i <= n; i++) {
            if (part[i] == "." || part[i] == "") continue
            if (part[i] == ".." && m > 0 && out[m] != "..") { m--; continue }
            out[++m] = part[i]
        }
        path = out[1]; for (i = 2; i <= m; i++) path = path "/" out[i]
        print file, path, inc
    }'
}
incs=$(includes)

# folders + kernels
for f in harness/*.c harness/*.h; do
    [ -e "$f" ] && say "folders: $f stands outside the subsystem folders (${order[*]})"
done
for d in harness/*/; do
    d=${d%/}
    [ "$(rank "$d/x")" = -1 ] && say "folders: $d is not a subsystem folder (${order[*]})"
done
while read -r file tgt raw; do
    case "$file" in harness/*) ;; *) continue ;; esac
    case "$tgt" in
    kernels/mp_kernel.h | kernels/common/*) ;;
    kernels/* | */kernels/*) say "kernels: $file includes kernel family header $raw (use the registry)" ;;
    harness/*)
        rf=$(rank "$file") rt=$(rank "$tgt")
        if [ "$rt" -gt "$rf" ]; then
            say "folders: $file includes $tgt, a folder above its own (${order[*]})"
        fi ;;
    esac
done <<<"$incs"

# commands: a command file includes only mp_cli.h, the shared option table
# (mp_options.h) and the shared output-path rule (mp_paths.h) of cli/
while read -r file tgt _; do
    case "$file:$tgt" in
    harness/cli/*:harness/cli/mp_cli.h | harness/cli/*:harness/cli/mp_options.h | \
        harness/cli/*:harness/cli/mp_paths.h) ;;
    harness/cli/*:harness/cli/*) say "commands: $file includes $tgt, another command's header" ;;
    esac
done <<<"$incs"

# cycles: tsort names a loop on stderr
loop=$(awk '$1 ~ /^harness\// && $2 ~ /^harness\// {print $1, $2}' <<<"$incs" | tsort 2>&1 >/dev/null |
       grep -v 'input contains a loop' | sed 's/^tsort: //' | tr '\n' ' ')
[ -n "$loop" ] && say "cycles: files include each other in a loop: $loop"

# tuner
grep -rnE '#include "[^"]*harness/' tuner && say "tuner: tuner/ includes harness/ (see above)"

# sql
sqlre='sqlite3|"[[:space:]]*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|ATTACH|DETACH|BEGIN|COMMIT|ROLLBACK|PRAGMA|VACUUM)[[:space:]]'
for f in $(grep -rlE "$sqlre" harness tuner variants kernels --include='*.c' --include='*.h'); do
    case "$f" in
    harness/store/*) ;;
    *) say "sql: $f speaks SQL outside the store: $(grep -nE "$sqlre" "$f" | head -2 | tr '\n' ' ')" ;;
    esac
done

# commands: mp_cmd_* defined only in cli/; mp_cli.h declares only them
for f in $(grep -rlE '^[a-z].*[^a-z_]mp_cmd_[a-z_]+\(' harness --include='*.c'); do
    case "$f" in
    harness/cli/*) ;;
    *) say "commands: $f defines a command outside cli/: $(grep -nE '^[a-z].*[^a-z_]mp_cmd_[a-z_]+\(' "$f" | head -1)" ;;
    esac
done
if [ -f harness/cli/mp_cli.h ]; then
    extra=$(grep -E '^[a-z].*\(' harness/cli/mp_cli.h | grep -v 'mp_cmd_' || true)
    [ -n "$extra" ] && say "commands: harness/cli/mp_cli.h declares non-command functions: $extra"
fi

# clocks
grep -rnE 'clock_gettime|gettimeofday|rdtsc|mp_now\(' kernels && say "clocks: kernels/ read a clock (see above)"

# calls: undefined symbols of an object resolved in a higher folder's objects
calls=unchecked
if [ -d "$build/harness" ] && command -v nm >/dev/null; then
    calls=checked
    # the objects of the tree's sources (a build may keep objects of moved files)
    objs=$(cd "$build" && find harness -name '*.o' | sort | while read -r o; do
               [ -f "$root/${o%.o}.c" ] && echo "$build/$o"; done)
    defs=$(nm -A -g --defined-only $objs 2>/dev/null |
           awk 'NF == 3 && $2 ~ /^[TDBRC]$/ {sub(/:[^:]*$/, "", $1); print $3, $1}' | sort -k1,1)
    undefs=$(nm -A -u $objs 2>/dev/null | awk '{sub(/:[^:]*$/, "", $1); print $NF, $1}' | sort -k1,1)
    edges=$(join <(echo "$undefs") <(echo "$defs") | awk -v b="$build/" '$2 != $3 {
                sub("^" b, "", $2); sub("^" b, "", $3); print }')
    while read -r sym from to; do
        [ -z "$sym" ] && continue
        rf=$(rank "$from") rt=$(rank "$to")
        [ "$rt" -gt "$rf" ] && say "calls: ${from%.o}.c calls $sym of ${to%.o}.c, a folder above its own"
    done <<<"$edges"
    floop=$(awk '{split($2, a, "/"); split($3, b, "/"); if (a[2] != b[2]) print a[2], b[2]}' <<<"$edges" |
            sort -u | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //' | tr '\n' ' ')
    [ -n "$floop" ] && say "calls: folders call each other in a loop: $floop"
fi

if [ $bad = 0 ]; then
    echo "check-layers: ok (folders ${order[*]}; include cycles; calls $calls; SQL; commands; kernels; tuner; clocks)"
fi
exit $bad
