#!/usr/bin/env bash
# battery.sh - the project's own bad-input battery (issue 40): commands run as a
# careless or hostile user would, each against $BATTERY_BIN in a fresh folder
# of small fixtures, each judged on four things:
#   1. the exit code (README "Exit codes": 2 bad input, 3 a file or database
#      failure, 130 interrupted; a death by signal is always a failure);
#   2. the message: stderr names the input (the option, the file, the value);
#   3. no data loss: when the command fails, every file of the folder is byte
#      for byte what it was (inputs untouched, special files still special) and
#      nothing new is left behind (no half-written output, no temporary file:
#      TMPDIR points into the folder);
#   4. no sanitizer report (AddressSanitizer, LeakSanitizer, UBSan) on stderr.
#
# The cases are rows of tab-separated tables (tests/battery/*.tsv) and the rows
# tests/battery/generate.sh prints (each command x option x class of bad value);
# tests/battery/README.md documents the columns and directives.  Classes:
#   a-outputs  an output that is an input (same path, ./, dir/.., symlink, hard
#              link) or a special file (FIFO, character device)
#   b-writes   output failures: no such folder, a folder, read-only, full disk,
#              `ulimit -f`, an empty name, a full stdout
#   c-signals  SIGTERM and SIGINT at exec, early and mid-run
#   d-integers integers (and numbers) in every option, file format and variable
#   e-repeats  repeated options, empty selections, help, files people have
#   f-dirs     folders given where files are read
#
# usage: scripts/battery.sh [-j JOBS] [--only REGEX] [--list] [--keep|--keep-failed]
#                           [--results FILE]
# Environment: BATTERY_BIN (default $MPBENCH_BIN, else ./mpbench), BATTERY_JOBS
# (default 4), BATTERY_TMP (default /tmp), BATTERY_TIMEOUT (seconds per case,
# default 20), BATTERY_ALLOW_FAIL=1 (report failures but exit 0).
# Under AddressSanitizer + UBSan (the flags of `make check-asan`):
#   make battery-asan       (= build build-asan/mpbench, then BATTERY_BIN=build-asan/mpbench)
# Exit: 0 every case passed or was skipped (or BATTERY_ALLOW_FAIL=1), 1 a case
# failed, 2 bad usage, 3 the fixtures could not be made.
#
# As root the read-only and full-disk cases use bind and tmpfs mounts inside
# the battery's own folder (root ignores permissions) and the special-file cases
# make device nodes there (mknod c 1 3, a null device, and c 1 7, a full one):
# nothing outside the folder is written.  Without those rights the cases are
# skipped with the reason.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JOBS=${BATTERY_JOBS:-4}
TIMEOUT=${BATTERY_TIMEOUT:-20}
ONLY= LIST=0 KEEP=0 RESULTS=${BATTERY_RESULTS:-}
while [ $# -gt 0 ]; do
    case $1 in
    -j) JOBS=${2:?}; shift 2 ;;
    --only) ONLY=${2?}; shift 2 ;;
    --list) LIST=1; shift ;;
    --keep) KEEP=1; shift ;;
    --keep-failed) KEEP=2; shift ;;
    --results) RESULTS=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "battery: unknown argument '$1' (see $0 --help)" >&2; exit 2 ;;
    esac
done
[[ $JOBS =~ ^[1-9][0-9]?$ ]] || { echo "battery: -j '$JOBS' is not a number of jobs in 1..99" >&2; exit 2; }
[[ $TIMEOUT =~ ^[1-9][0-9]{0,3}$ ]] || { echo "battery: BATTERY_TIMEOUT='$TIMEOUT' is not a number of seconds" >&2; exit 2; }

BIN=${BATTERY_BIN:-${MPBENCH_BIN:-$REPO/mpbench}}
[[ $BIN == /* ]] || BIN=$PWD/$BIN
[ -f "$BIN" ] && [ -x "$BIN" ] || {
    echo "battery: BATTERY_BIN='$BIN' is not an executable file (run make, or set BATTERY_BIN)" >&2
    exit 2
}

# A clean environment: none of the caller's MPBENCH_* (make test sets some);
# models and gnuplot scripts from this tree whatever the binary's folder.
for v in $(compgen -e); do
    case $v in MPBENCH_* | MP_LLAMA_LOG) unset "$v" ;; esac
done
export MPBENCH_MODELS=$REPO/models/shapes MPBENCH_SCRIPTS=$REPO/scripts
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$REPO/tests/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export LC_ALL=C

ROOT=$(mktemp -d "${BATTERY_TMP:-/tmp}/mpbench-battery.XXXXXX") || exit 3
unmount_under() { # every mount below $1, deepest first
    local m
    for m in $(awk -v r="$1/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
        umount -l "$m" 2>/dev/null
    done
}
cleanup() {
    unmount_under "$ROOT"
    if [ "$KEEP" = 0 ]; then rm -rf "$ROOT"; else echo "battery: kept $ROOT" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$ROOT/c"

# ---- what this machine allows -------------------------------------------------------
CAN_MOUNT=0 CAN_MKNOD=0 HAVE_SQLITE=0 HAVE_GNUPLOT=0 HAVE_PEER=0 IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1
mkdir -p "$ROOT/probe-mnt"
if [ $IS_ROOT = 1 ] && mount -t tmpfs -o size=64k tmpfs "$ROOT/probe-mnt" 2>/dev/null; then
    umount "$ROOT/probe-mnt" && CAN_MOUNT=1
fi
mknod "$ROOT/probe-null" c 1 3 2>/dev/null && CAN_MKNOD=1
rm -rf "$ROOT/probe-mnt" "$ROOT/probe-null"
command -v sqlite3 >/dev/null && HAVE_SQLITE=1
command -v gnuplot >/dev/null && HAVE_GNUPLOT=1
"$BIN" list variants 2>/dev/null | awk '$1 == "llamacpp.tq2_0" && $5 == "yes" {f = 1} END {exit !f}' &&
    HAVE_PEER=1

GE=$ROOT/gguf-edit RS=$ROOT/run-status
${CC:-cc} -O1 -o "$GE" "$REPO/tests/battery/gguf-edit.c" &&
    ${CC:-cc} -O1 -o "$RS" "$REPO/tests/battery/run-status.c" ||
    { echo "battery: cannot build the helpers in tests/battery/" >&2; exit 3; }

# ---- fixtures: made once, copied into each case's folder by name ------------------------
FIX=$ROOT/fix
fixtures() {
    mkdir -p "$FIX" && cd "$FIX" || return 1
    cp "$REPO/tests/fixtures/tiny.txt" m.txt && cp "$REPO/tests/fixtures/tiny-tq.txt" mtq.txt &&
        cp "$REPO/tests/fixtures/tiny-relu2.txt" mr.txt || return 1
    printf '\001\000\377\000%.0s' {1..2048} >w.int8 # 64 x 128 ternary int8
    cp "$REPO/results/report.db" r.db && cp "$REPO/results/claims.tsv" c.tsv || return 1
    local q=(--warm --min-time 0 --counters none)
    "$BIN" pack --gguf-out g.gguf --model ./m.txt &&
        "$BIN" pack --gguf-out gtq.gguf --model ./mtq.txt --variant tq2_0 &&
        "$BIN" pack --gguf-out gr.gguf --model ./mr.txt --variant i2_s &&
        "$BIN" sweep --variant i2_s.scalar,naive2.scalar --shape 64x128,32x256 --n 1,2 --reps 3 \
            "${q[@]}" --db s.db --quiet &&
        "$BIN" sweep --variant i2_s.scalar,naive2.scalar --shape 64x128,32x256 --reps 1 \
            "${q[@]}" --db u.db --quiet &&
        "$BIN" tune --variant i2_s.scalar --shape 128x128 --strategy random --budget 2 --reps 9 \
            --warm --db tn.db --out t.conf --quiet || return 1
    rm -f ./*-wal ./*-shm
    FP=$(awk '$1 == "fingerprint" {print $2; exit}' t.conf)
    [ -n "$FP" ] || return 1
    md5sum ./* >"$ROOT/fix.md5"
} >"$ROOT/fixtures.log" 2>&1
if ! (fixtures); then
    echo "battery: the fixtures could not be made with $BIN:" >&2
    tail -n 20 "$ROOT/fixtures.log" >&2
    exit 3
fi
FP=$(awk '$1 == "fingerprint" {print $2; exit}' "$FIX/t.conf")
mapfile -t FIXNAMES < <(cd "$FIX" && ls)
export REPO FIX FP GE BIN HAVE_PEER

# ---- the cases ------------------------------------------------------------------------
CASES=$ROOT/cases.tsv
{
    for t in "$REPO"/tests/battery/*.tsv; do grep -v -e '^#' -e '^[[:space:]]*$' "$t"; done
    bash "$REPO/tests/battery/generate.sh"
} >"$CASES.all" || { echo "battery: tests/battery/generate.sh failed" >&2; exit 3; }
awk -F'\t' -v only="$ONLY" '
    NF != 6 { printf "battery: a case row has %d fields, not 6: %s\n", NF, $0 > "/dev/stderr"; bad = 1; next }
    $2 !~ /^[A-Za-z0-9._+-]+$/ { printf "battery: bad case id %s\n", $2 > "/dev/stderr"; bad = 1; next }
    seen[$2]++ { printf "battery: duplicate case id %s\n", $2 > "/dev/stderr"; bad = 1; next }
    only == "" || ($1 " " $2) ~ only { print }
    END { exit bad }' "$CASES.all" >"$CASES" || exit 3
if [ $LIST = 1 ]; then
    cat "$CASES"
    exit 0
fi
NCASES=$(wc -l <"$CASES")

# ---- one case ------------------------------------------------------------------------
# The runner forks little: under a loaded machine each fork costs milliseconds, and
# a case is a few of them plus the command.
#
# snap DIR ARRAY: ARRAY[path] = its type and identity: for a file its size, inode,
# link count and modification and change times to the nanosecond (any write or
# replacement changes them; reading does not), a link's target, a folder's type.
snap() {
    local -n into=$2
    local line
    into=()
    while IFS= read -r line; do
        into[${line%%$'\t'*}]=${line#*$'\t'}
    done < <(cd "$1" && find . -mindepth 1 \( -type d -printf '%P\td\n' \) -o \
        \( -printf '%P\t%y %s %i %n %T@ %C@ %l\n' \) 2>/dev/null)
}

# missing_text TEXT SPEC: sets MISSING to the first ' && ' group of SPEC none of
# whose ' || ' alternatives (printf %b escapes) is in TEXT; returns 1 then.
missing_text() {
    local text=$1 rest=$2 group grest alt ok
    MISSING=
    [ "$rest" = - ] && return 0
    while [ -n "$rest" ]; do
        group=${rest%% && *}
        [ "$group" = "$rest" ] && rest= || rest=${rest#* && }
        ok=0 grest=$group
        while [ -n "$grest" ]; do
            alt=${grest%% || *}
            [ "$alt" = "$grest" ] && grest= || grest=${grest#* || }
            printf -v alt '%b' "$alt"
            [[ $text == *"$alt"* ]] && { ok=1; break; }
        done
        [ $ok = 1 ] || { MISSING=$group; return 1; }
    done
    return 0
}

exit_ok() { # EXPECT RC: RC is one of EXPECT's '|' alternatives
    local e x
    IFS='|' read -ra e <<<"$1"
    for x in "${e[@]}"; do [ "$x" = "$2" ] && return 0; done
    return 1
}

rc_text() { # 143 -> "143 (SIGTERM)"
    local n
    if [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then
        n=$(kill -l $(($1 - 128)) 2>/dev/null)
        printf '%s (SIG%s)' "$1" "$n"
    else printf '%s' "$1"; fi
}

matches_any() { # PATH GLOB...
    local p=$1 g
    shift
    for g in "$@"; do
        # shellcheck disable=SC2053
        [[ $p == $g ]] && return 0
    done
    return 1
}

# PSTATE: the state of process $1 (R, S, D, Z ...; empty when gone)
# /proc files are read unbuffered (-d ''), or in a subshell: bash's buffered
# `read` seeks back over what it read ahead, that seek fails on the /proc file of
# a process that has just ended, and bash then hands the unread bytes to the
# next `read` of any file (a status file then read as a memory map)
pstate() {
    local st=
    PSTATE=
    IFS= read -r -d '' st 2>/dev/null <"/proc/$1/stat"
    [ -n "$st" ] || return
    st=${st##*) }
    PSTATE=${st%% *}
}

slurp() { # FILE VAR: the file's text (at most what read takes), no fork
    local -n v=$2
    v=
    [ -s "$1" ] && IFS= read -r -d '' v <"$1"
    return 0
}

run_case() {
    local class=$1 id=$2 expect=$3 needs=$4 dirs=$5 cmd=$6
    local D=$ROOT/c/$id out=$ROOT/c/$id.out err=$ROOT/c/$id.err
    local -a envs=() unsets=() may=() keep=() absent=() absent0=() exists0=() if0=() outs=() errs=() dbok=() dbint=() sql0=() noerr0=()
    local ulim= sig= sig2= tmo=$TIMEOUT stdout_to= cwd=. skip= setup_err= mounted=0
    mkdir -p "$D/.tmp"
    local f fx=()
    for f in "${FIXNAMES[@]}"; do
        [[ "$cmd $dirs" == *"$f"* ]] && fx+=("$FIX/$f")
    done
    [ ${#fx[@]} -gt 0 ] && cp "${fx[@]}" "$D/"
    # directives, in order
    local rest=$dirs d key val src dst
    [ "$rest" = - ] && rest=
    while [ -n "$rest" ] && [ -z "$skip$setup_err" ]; do
        d=${rest%% ; *}
        [ "$d" = "$rest" ] && rest= || rest=${rest#* ; }
        [ "$d" = - ] && continue
        key=${d%%:*} val=${d#*:}
        src=${val%%>*} dst=${val#*>}
        case $key in
        needs)
            case $val in
            root) [ $IS_ROOT = 1 ] || skip="needs root" ;;
            mount) [ $CAN_MOUNT = 1 ] || skip="needs mount rights (root, tmpfs and bind mounts)" ;;
            mknod) [ $CAN_MKNOD = 1 ] || skip="needs mknod rights" ;;
            sqlite3) [ $HAVE_SQLITE = 1 ] || skip="needs the sqlite3 program" ;;
            gnuplot) [ $HAVE_GNUPLOT = 1 ] || skip="needs gnuplot" ;;
            peer) [ $HAVE_PEER = 1 ] || skip="needs the llama.cpp peer (make peers)" ;;
            *) setup_err="unknown need '$val'" ;;
            esac ;;
        mkdir) mkdir -p "$D/$val" || setup_err="mkdir $val" ;;
        fifo) mkfifo "$D/$val" || setup_err="mkfifo $val" ;;
        chardev) # P or P=MAJOR,MINOR (default 1,3: a null device)
            [ $CAN_MKNOD = 1 ] || { skip="needs mknod rights"; break; }
            local p=${val%%=*} mm=1,3
            [ "$p" != "$val" ] && mm=${val#*=}
            mknod "$D/$p" c "${mm%,*}" "${mm#*,}" || setup_err="mknod $val" ;;
        symlink) ln -s "$dst" "$D/$src" || setup_err="symlink $val" ;;
        hardlink) ln "$D/$dst" "$D/$src" || setup_err="hardlink $val" ;;
        file) mkdir -p "$(dirname "$D/${val%%=*}")" && printf '%b' "${val#*=}" >"$D/${val%%=*}" ||
            setup_err="file $val" ;;
        copy)
            [ -e "$D/$src" ] && src=$D/$src || src=$FIX/$src
            mkdir -p "$(dirname "$D/$dst")" && cp "$src" "$D/$dst" || setup_err="copy $val" ;;
        edit) # SRC>DST=SED-EXPRESSION
            local e=${dst#*=}
            dst=${dst%%=*}
            [ -e "$D/$src" ] && src=$D/$src || src=$FIX/$src
            # an edit that changes nothing is a stale case (its pattern no longer
            # matches the fixture), not a pass
            sed -e "$e" "$src" >"$D/$dst.new" && ! cmp -s "$src" "$D/$dst.new" &&
                mv "$D/$dst.new" "$D/$dst" || setup_err="edit $val (changed nothing?)" ;;
        patch) # FILE@OFFSET:BYTES=VALUE
            local pf=${val%%@*} po=${val#*@}
            "$GE" set "$D/$pf" "${po%%:*}" "$(v=${po#*:}; echo "${v%%=*}")" "${po#*=}" ||
                setup_err="patch $val" ;;
        retype) # SRC>DST@TENSOR=TYPE
            local tt=${dst#*@}
            dst=${dst%%@*}
            [ -e "$D/$src" ] && src=$D/$src || src=$FIX/$src
            "$GE" retype "$src" "$D/$dst" "${tt%%=*}" "${tt#*=}" || setup_err="retype $val" ;;
        sql) # DB=STATEMENT
            [ $HAVE_SQLITE = 1 ] || { skip="needs the sqlite3 program"; break; }
            sqlite3 "$D/${val%%=*}" "${val#*=}" >/dev/null || setup_err="sql $val" ;;
        ro) # DIR: a read-only bind mount of it (root ignores permissions)
            [ $CAN_MOUNT = 1 ] || { skip="needs mount rights for a read-only folder"; break; }
            mounted=1
            mkdir -p "$D/$val" && mount --bind "$D/$val" "$D/$val" &&
                mount -o remount,bind,ro "$D/$val" || setup_err="ro $val" ;;
        tmpfs) # DIR=SIZE
            [ $CAN_MOUNT = 1 ] || { skip="needs mount rights for a full disk (tmpfs)"; break; }
            mounted=1
            mkdir -p "$D/${val%%=*}" && mount -t tmpfs -o "size=${val#*=}" tmpfs "$D/${val%%=*}" ||
                setup_err="tmpfs $val" ;;
        fill) # DIR or DIR=KB: fill the tmpfs DIR, leaving KB free
            local fd=${val%%=*} kb=0
            [ "$fd" != "$val" ] && kb=${val#*=}
            dd if=/dev/zero of="$D/$fd/.fill" bs=4k >/dev/null 2>&1
            [ "$kb" -gt 0 ] && truncate -s "-${kb}K" "$D/$fd/.fill" ;;
        chmod) chmod "${val#*=}" "$D/${val%%=*}" || setup_err="chmod $val" ;;
        truncate) truncate -s "${val#*=}" "$D/${val%%=*}" || setup_err="truncate $val" ;;
        env) envs+=("$val") ;;
        unset) unsets+=("$val") ;;
        ulimit-f) ulim=$val ;;
        timeout) tmo=$val ;;
        signal) sig=$val ;;
        signal2) sig2=$val ;;
        stdout) stdout_to=$val ;;
        cwd) cwd=$val ;;
        may) may+=("$val") ;;
        keep) keep+=("$val") ;;
        absent) absent+=("$val") ;;
        absent0) absent0+=("$val") ;;
        exists0) exists0+=("$val") ;;
        if0) if0+=("$val") ;;
        out) outs+=("$val") ;;
        err) errs+=("$val") ;;
        dbok) dbok+=("$val") ;;
        dbint) dbint+=("$val") ;;
        sql0) sql0+=("$val") ;;
        noerr0) noerr0+=("$val") ;;
        *) setup_err="unknown directive '$d'" ;;
        esac
    done
    if [ -n "$skip" ] || [ -n "$setup_err" ]; then
        [ $mounted = 1 ] && unmount_under "$D"
        rm -rf "$D"
        if [ -n "$skip" ]; then
            printf '%s\t%s\tSKIP\t%s\t-\t%s\t%s\t-\t0\n' "$class" "$id" "$expect" "$skip" "$cmd"
        else
            printf '%s\t%s\tFAIL\t%s\t-\tsetup: %s\t%s\t-\t0\n' "$class" "$id" "$expect" "$setup_err" "$cmd"
        fi
        return
    fi
    local t_start=$EPOCHREALTIME
    local -A B=() A=()
    snap "$D" B

    # run: the command words are shell words (quotes, $D, $FIX, $FP); a command
    # starting with '!' is a shell command line (the Slurm scripts)
    local rc timed_out=0 moment_note= died=
    # child: the command in its folder and environment, under timeout, with
    # `ulimit -f` when asked (a signal case execs the binary itself: its pid is
    # the one signalled)
    child() {
        cd "$D/$cwd" || exit 97
        export D TMPDIR=$D/.tmp
        local e
        for e in "${unsets[@]}"; do unset "$e"; done
        for e in "${envs[@]}"; do export "${e?}"; done
        if [[ $cmd == '!'* ]]; then
            set -- bash -c "${cmd#!}"
        else
            eval "set -- $cmd" || exit 98
            set -- "$BIN" "$@"
        fi
        [ -n "$ulim" ] && ulimit -f "$ulim"
        exec timeout -k 2 "$tmo" "$@"
    }
    if [ -n "$sig" ]; then
        # through run-status: it tells "exit 130" from "killed by SIGINT"
        rm -f "$out.pid" "$out.st"
        (
            cd "$D/$cwd" || exit 97
            export D TMPDIR=$D/.tmp
            for e in "${unsets[@]}"; do unset "$e"; done
            for e in "${envs[@]}"; do export "${e?}"; done
            eval "set -- $cmd" || exit 98
            exec "$RS" "$out.pid" "$out.st" "$BIN" "$@"
        ) >"$out" 2>"$err" &
        local hpid=$! pid= k s1=${sig%%@*} when=${sig#*@}
        for ((k = 0; k < 2000; k++)); do
            [ -s "$out.pid" ] && { read -r pid <"$out.pid"; break; }
            sleep 0.005
        done
        # the moment it has exec'ed the binary
        for ((k = 0; k < 100000; k++)); do
            [[ /proc/$pid/exe -ef $BIN ]] && break
            [ -e "/proc/$pid" ] || break
        done
        case $when in
        exec) ;;
        main+*) # once the loader has mapped the libraries (main is about to run), then S s
            for ((k = 0; k < 2000; k++)); do
                local maps=
                { maps=$(<"/proc/$pid/maps"); } 2>/dev/null
                [[ $maps == *libsqlite3* ]] && break
                [ -e "/proc/$pid" ] || break
                sleep 0.002
            done
            sleep "${when#main+}" ;;
        +*) sleep "${when#+}" ;;
        db:*) # when the database holds a run (then 0.2 s more); at most 15 s
            local dbf=$D/${when#db:} n=0
            for ((k = 0; k < 300; k++)); do
                pstate $pid; [ "$PSTATE" = Z ] || [ -z "$PSTATE" ] && break
                n=$(sqlite3 "$dbf" 'SELECT count(*) FROM runs' 2>/dev/null) || n=0
                [ "${n:-0}" -ge 1 ] 2>/dev/null && break
                sleep 0.05
            done
            [ "${n:-0}" -ge 1 ] 2>/dev/null || moment_note=" (no run stored within 15 s: signalled then)"
            sleep 0.2 ;;
        err:*) # when stderr says TEXT; at most 15 s
            for ((k = 0; k < 300; k++)); do
                grep -qF -- "${when#err:}" "$err" 2>/dev/null && break
                pstate $pid; [ "$PSTATE" = Z ] || [ -z "$PSTATE" ] && break
                sleep 0.05
            done ;;
        esac
        pstate $pid
        { [ "$PSTATE" = Z ] || [ -z "$PSTATE" ]; } && moment_note="$moment_note (it had ended before the signal)"
        kill "-$s1" "$pid" 2>/dev/null
        if [ -n "$sig2" ]; then
            sleep "${sig2#*@+}"
            kill "-${sig2%%@*}" "$pid" 2>/dev/null
        fi
        for ((k = 0; k < tmo * 20; k++)); do
            [ -s "$out.st" ] && break
            sleep 0.05
        done
        if [ ! -s "$out.st" ]; then
            kill -KILL "$pid" 2>/dev/null
            timed_out=1
        fi
        wait "$hpid"
        local how=exit val=
        [ -s "$out.st" ] && read -r how val <"$out.st"
        case $how in
        exit) rc=$val ;;
        signal) rc=$((128 + val)) died=$val ;;
        exec) rc=-1 moment_note="$moment_note (run-status could not start it: errno $val)" ;;
        *) rc=-1 moment_note="$moment_note (no status from run-status)" ;;
        esac
    else
        if [ -n "$stdout_to" ]; then
            (child) >"$D/$stdout_to" 2>"$err"
            rc=$?
            : >"$out"
        elif [ -n "$ulim" ]; then
            # stdout and stderr through pipes: `ulimit -f` limits only the files
            # the command itself writes
            {
                (child) 2>&3 | cat >"$out"
                echo "${PIPESTATUS[0]}" >"$out.rc"
            } 3>&1 | cat >"$err"
            read -r rc <"$out.rc"
        else
            (child) >"$out" 2>"$err"
            rc=$?
        fi
        case $rc in 124 | 137) timed_out=1 ;; esac
    fi

    # judge
    local -a why=()
    local errtxt outtxt
    slurp "$err" errtxt
    slurp "$out" outtxt
    if [ $timed_out = 1 ]; then
        why+=("did not end within ${tmo}s (killed)$moment_note")
    elif [ -n "$died" ]; then
        why+=("killed by SIG$(kill -l "$died" 2>/dev/null) (status $rc), expected exit $expect$moment_note")
    elif ! exit_ok "$expect" "$rc"; then
        why+=("exit $(rc_text "$rc"), expected $expect$moment_note")
    fi
    if [ "$rc" != 0 ] || [ "$expect" = 0 ]; then
        missing_text "$errtxt" "$needs" || why+=("stderr lacks '$MISSING'")
    fi
    for f in "${errs[@]}"; do missing_text "$errtxt" "$f" || why+=("stderr lacks '$MISSING'"); done
    for f in "${outs[@]}"; do missing_text "$outtxt" "$f" || why+=("stdout lacks '$MISSING'"); done
    if [ "$rc" = 0 ]; then
        for f in "${if0[@]}"; do missing_text "$outtxt" "$f" || why+=("exit 0 but stdout lacks '$MISSING'"); done
        for f in "${exists0[@]}"; do [ -e "$D/$f" ] || why+=("exit 0 but $f was not written"); done
        for f in "${absent0[@]}"; do [ -e "$D/$f" ] && why+=("exit 0 but $f exists"); done
    fi
    case $errtxt in
    *"ERROR: AddressSanitizer"* | *"ERROR: LeakSanitizer"* | *"runtime error:"* | *"SUMMARY: UndefinedBehaviorSanitizer"*)
        why+=("sanitizer report: $(grep -m1 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$err" | cut -c1-200)") ;;
    esac
    for f in "${absent[@]}"; do [ -e "$D/$f" ] && why+=("$f exists (nothing may be left)"); done
    # data: every entry unchanged when the command failed (or when listed in keep:)
    local strict=0 p
    [ "$rc" != 0 ] && strict=1
    snap "$D" A
    for p in "${!B[@]}"; do
        [ "${A[$p]-}" = "${B[$p]}" ] && continue
        if [ $strict = 1 ] || matches_any "$p" "${keep[@]}"; then
            matches_any "$p" "${may[@]}" && continue
            if [ -z "${A[$p]+x}" ]; then why+=("data: $p removed")
            elif [ "${A[$p]%% *}" != "${B[$p]%% *}" ]; then
                why+=("data: $p replaced (type ${B[$p]%% *} -> ${A[$p]%% *})")
            else why+=("data: $p changed"); fi
        fi
    done
    if [ $strict = 1 ]; then
        for p in "${!A[@]}"; do
            [ -n "${B[$p]+x}" ] && continue
            matches_any "$p" "${may[@]}" && continue
            # SQLite's shared-memory index, and an empty write-ahead log, of a
            # database opened by a command that then failed: no data in them
            [[ $p == *-shm ]] && continue
            [[ $p == *-wal ]] && [[ ${A[$p]} == "f 0 "* ]] && continue
            # a file below a new folder is reported with its folder
            [ "${p%/*}" != "$p" ] && [ -n "${A[${p%/*}]+x}" ] && [ -z "${B[${p%/*}]+x}" ] && continue
            why+=("data: $p left behind")
        done
    fi
    # dbok: the database whole and no run left 'running'; dbint: whole (room made
    # on a filled disk first, so that the check can open it)
    local ic run
    [ $mounted = 1 ] && [ $((${#dbok[@]} + ${#dbint[@]} + ${#sql0[@]})) -gt 0 ] && rm -f "$D"/*/.fill
    for f in "${dbok[@]}" "${dbint[@]}"; do
        [ -e "$D/$f" ] || continue
        [ $HAVE_SQLITE = 1 ] || continue
        ic=$(sqlite3 "$D/$f" 'PRAGMA integrity_check' 2>&1 | head -n 1)
        [ "$ic" = ok ] || why+=("database $f: integrity_check: $ic")
    done
    for f in "${dbok[@]}"; do
        [ -e "$D/$f" ] && [ $HAVE_SQLITE = 1 ] || continue
        run=$(sqlite3 "$D/$f" "SELECT count(*) FROM runs WHERE status='running'" 2>/dev/null)
        [ "${run:-0}" = 0 ] || why+=("database $f: $run run(s) left 'running'")
    done
    # on exit 0: what it says it stored is there (DB=QUERY prints 1), and it did
    # not say that a write failed
    if [ "$rc" = 0 ]; then
        for f in "${sql0[@]}"; do
            [ $HAVE_SQLITE = 1 ] || continue
            run=$(sqlite3 "$D/${f%%=*}" "${f#*=}" 2>&1 | head -n 1)
            [ "$run" = 1 ] || why+=("exit 0 but ${f%%=*} lacks what it stored (${f#*=}: $run)")
        done
        for f in "${noerr0[@]}"; do
            [[ $errtxt == *"$f"* ]] && why+=("exit 0 after saying '$f'")
        done
    fi

    local status=PASS
    [ ${#why[@]} -gt 0 ] && status=FAIL
    local head= line reasons=-
    if [ $status = FAIL ]; then
        # the first lines of stderr, without the machine's usual notes
        while IFS= read -r line; do
            case $line in
            *"warning: load average"* | *"note: running under a hypervisor"* | *"counter "*" unavailable"*) continue ;;
            esac
            head+="$line "
            [ ${#head} -gt 400 ] && break
        done <<<"$errtxt"
        head=${head//$'\t'/ }
        printf -v reasons '%s; ' "${why[@]}"
        reasons=${reasons%; }
    fi
    local ms=$(((${EPOCHREALTIME/./} - ${t_start/./}) / 1000))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$class" "$id" "$status" "$expect" "$rc" \
        "$reasons" "$cmd" "${head:--}" "$ms"
    [ $mounted = 1 ] && unmount_under "$D"
    if [ "$KEEP" = 1 ] || { [ "$KEEP" = 2 ] && [ $status = FAIL ]; }; then
        :
    else
        rm -rf "$D" "$out" "$err" "$out.rc" "$out.pid" "$out.st"
    fi
}

run_shard() {
    local s=$1 i=0 class id expect needs dirs cmd
    while IFS=$'\t' read -r class id expect needs dirs cmd; do
        if [ $((i % JOBS)) = "$s" ]; then
            run_case "$class" "$id" "$expect" "$needs" "$dirs" "$cmd"
        fi
        i=$((i + 1))
    done <"$CASES"
}

t0=$(date +%s)
echo "battery: $NCASES cases, $JOBS jobs, binary $BIN (work folder $ROOT)"
pids=()
for ((s = 0; s < JOBS; s++)); do
    run_shard $s >"$ROOT/res.$s" 2>"$ROOT/shard.$s.err" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
cat "$ROOT"/res.[0-9]* | sort -t$'\t' -k1,1 -k2,2 >"$ROOT/results.tsv"
# the runner's own messages (not bash's notes on the jobs it killed)
for s in "$ROOT"/shard.*.err; do
    grep -v -E '^[^:]*: line [0-9]+: +[0-9]+ (Killed|Terminated|Done|File size limit exceeded)|^ +[0-9]+ Done|^ +(do|done|export|unset)' "$s" |
        head -n 20 | sed 's/^/battery: runner: /'
done
[ -n "$RESULTS" ] && cp "$ROOT/results.tsv" "$RESULTS"

# template unchanged (no case wrote through to the fixtures)
(cd "$FIX" && md5sum -c --quiet "$ROOT/fix.md5") >/dev/null 2>&1 ||
    echo "battery: WARNING: the fixture template changed during the run"

# ---- summary --------------------------------------------------------------------------
# per class, then per group (the case id's first word) within each class
summary() { # FIELD-EXPR
    awk -F'\t' -v key="$1" '
        { k = $1; if (key == "group") { g = $2; sub(/\..*/, "", g); k = $1 " " g }
          n[k]++; s[k, $3]++ }
        END { for (k in n) printf "%-24s %6d %7d %7d %8d\n", k, n[k], s[k, "PASS"], s[k, "FAIL"], s[k, "SKIP"] }' \
        "$ROOT/results.tsv" | sort
}
echo
printf '%-24s %6s %7s %7s %8s\n' class cases passed failed skipped
summary class
awk -F'\t' -v secs=$(($(date +%s) - t0)) '{ s[$3]++ }
    END { printf "%-24s %6d %7d %7d %8d   (%d s)\n", "total", NR, s["PASS"], s["FAIL"], s["SKIP"], secs }' \
    "$ROOT/results.tsv"
echo
printf '%-24s %6s %7s %7s %8s\n' "class group" cases passed failed skipped
summary group
ran=$(wc -l <"$ROOT/results.tsv")
[ "$ran" = "$NCASES" ] || echo "battery: $ran cases ran of $NCASES"
awk -F'\t' '$3 == "SKIP" { r[$6]++ } END { for (k in r) printf "skipped %d: %s\n", r[k], k }' "$ROOT/results.tsv"
nfail=$(awk -F'\t' '$3 == "FAIL"' "$ROOT/results.tsv" | wc -l)
if [ "$nfail" -gt 0 ]; then
    echo
    echo "failures (class, case, why; the command after 'mpbench'; stderr head):"
    awk -F'\t' '$3 == "FAIL" {
        printf "[%s] %s: %s\n    mpbench %s\n    stderr: %s\n", $1, $2, $6, $7, substr($8, 1, 300) }' "$ROOT/results.tsv"
fi
echo
echo "battery: $nfail failed of $NCASES"
[ "$nfail" = 0 ] && exit 0
[ "${BATTERY_ALLOW_FAIL:-0}" = 1 ] && { echo "battery: BATTERY_ALLOW_FAIL=1: failures reported, exit 0"; exit 0; }
exit 1
