#!/usr/bin/env bash
# test-slurm.sh - `make test-slurm`: the Slurm scripts against a real, local
# Slurm cluster of three nodes on this one machine.
#
# First, without a cluster: array.sbatch and merge.sbatch with each environment
# variable they read missing or malformed end with exit 2 and a message naming
# the variable and its value (not bash's "unbound variable").
#
# Then writes a configuration bound to 127.0.0.1 into a temporary directory (its
# own munge key and socket, state, spool and logs there, ports picked free) and
# starts munged, slurmctld and three slurmd from it (directly, in the foreground,
# as this machine may have no systemd).  The three nodes n1, n2, n3 use Slurm's
# multiple-slurmd mode (Debian's slurm-wlm is built with it: `scontrol show
# config` says MULTIPLE_SLURMD = Yes, checked): one slurmd per node, `slurmd -N
# nK`, each on its own port and spool directory, all on localhost, each claiming
# the whole machine's CPUs.  Through the real scripts/slurm/sweep.sh:
#   round 1: a 4-shard array sweep of a small plan and its merge job;
#   round 2: the same with a longer plan, one array task cancelled midway
#            (scancel), requeued (scontrol requeue), and resumed;
#   round 3: a 6-shard array spread over the three nodes (each task's log names
#            its node, SLURMD_NODENAME; at least two must have run tasks); while
#            a task has stored part of its shard, its node dies: the node's
#            slurmd, the task's slurmstepd and the task are killed with SIGKILL,
#            as in a power loss.  Slurm itself declares the node DOWN
#            (SlurmdTimeout=5) and requeues the task (JobRequeue=1 and the
#            array's --requeue: "requeue job ... due to failure of node" in the
#            slurmctld log; nothing here calls scontrol requeue), holds it for
#            cred_expire=10 s, then runs it on a surviving node, where it
#            resumes from its part database;
# and checks each merged database: its result keys are exactly the unsharded
# plan's (`mpbench sweep --dry-run`), none twice, PRAGMA integrity_check ok.
# Every daemon it started is stopped by its pid on exit, whatever happens, and
# any slurmstepd or task left behind by them (found by a variable only this
# run's slurmd carry in their environment) is killed; every wait is bounded.
# Needs root, slurm-wlm, munge and sqlite3 (make test-slurm installs them).
# KEEP=1 keeps the temporary directory for a post-mortem.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${MPBENCH:-$root/mpbench}
[ "$(id -u)" = 0 ] || { echo "test-slurm: run as root (slurmd must start jobs as any user)" >&2; exit 2; }
for c in munged slurmctld slurmd sbatch scontrol squeue scancel sqlite3; do
    command -v "$c" >/dev/null || { echo "test-slurm: $c not found (make test-slurm installs slurm-wlm, munge)" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "test-slurm: $bin not built (make)" >&2; exit 2; }

T=$(mktemp -d /tmp/mpbench-slurm-XXXXXX)
chmod 755 "$T"
pids=() # daemons we started, in start order
jobs_submitted=()

log() { echo "test-slurm: $*"; }
fail() {
    echo "test-slurm: FAIL: $*" >&2
    for f in "$T"/log/*.log "$T"/r*/logs/*.log; do
        [ -f "$f" ] && { echo "--- $f (last 15 lines)" >&2; tail -n 15 "$f" >&2; }
    done
    [ -n "${SLURM_CONF:-}" ] && { echo "--- sinfo -N" >&2; sinfo -N -o '%N %T %E' >&2 2>/dev/null; }
    exit 1
}

# The three slurmd are started with MPBENCH_TEST_SLURMD=$T:NODE: in their
# environment, which their slurmstepd inherit (the tasks' environment is the
# submitter's instead).  tagged VALUE...: the pids of every process whose
# MPBENCH_TEST_SLURMD is one of the VALUEs, and of all their descendants.
tagged() {
    local v pat=() found
    for v in "$@"; do pat+=(-e "MPBENCH_TEST_SLURMD=$v"); done
    found=$(grep -lzsFx "${pat[@]}" /proc/[0-9]*/environ | sed 's|^/proc/||; s|/environ$||' | tr '\n' ' ') || true
    [ -n "$found" ] || return 0
    ps -e -o pid=,ppid= | awk -v roots="$found" '
        BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
        { parent[$1] = $2 }
        END { do { more = 0; for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; more = 1 } } while (more)
              for (p in keep) printf "%s ", p }'
}

cleanup() {
    local rc=$? strays
    trap - EXIT INT TERM
    if [ ${#jobs_submitted[@]} -gt 0 ] && [ -n "${SLURM_CONF:-}" ]; then
        scancel "${jobs_submitted[@]}" 2>/dev/null || true
        for _ in $(seq 50); do # let the job steps end before their slurmd does
            [ -z "$(squeue -h -j "$(IFS=,; echo "${jobs_submitted[*]}")" 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    local i p
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        p=${pids[i]}
        kill -TERM "$p" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    # a slurmstepd outlives its slurmd (and the task its slurmstepd): any left
    strays=$(tagged "$T:n1:" "$T:n2:" "$T:n3:")
    [ -z "$strays" ] || { echo "test-slurm: killing leftover slurmstepd/tasks: $strays" >&2; kill -KILL $strays 2>/dev/null || true; }
    if [ "${KEEP:-0}" = 1 ]; then echo "test-slurm: kept $T" >&2; else rm -rf "$T"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for SECONDS WHAT COMMAND...: poll COMMAND every 0.2 s until it succeeds
wait_for() {
    local secs=$1 what=$2
    shift 2
    local end=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || fail "timed out after ${secs}s waiting for $what"
        sleep 0.2
    done
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# pick_port: P such that P (slurmctld) and P+1..P+3 (the three slurmd) are free
pick_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        port_free "$p" && port_free $((p + 1)) && port_free $((p + 2)) && port_free $((p + 3)) &&
            { echo "$p"; return; }
    done
    fail "no four free ports in a row found"
}

# --- the scripts' environment checks (no cluster needed) ----------------------
# env_bad SCRIPT WANT VAR=VALUE...: SCRIPT run with only these variables (and
# PATH) exits 2 saying WANT
env_bad() {
    local script=$1 want=$2 rc=0 err
    shift 2
    err=$(cd "$T" && env -i PATH="$PATH" "$@" bash "$root/scripts/slurm/$script" 2>&1 >/dev/null) || rc=$?
    [ "$rc" = 2 ] || fail "$script with $*: exit $rc, expected 2: $err"
    [[ "$err" == *"$want"* ]] || fail "$script with $*: the message does not say \"$want\": $err"
    [[ "$err" != *unbound* ]] || fail "$script with $*: $err"
    env_cases=$((env_cases + 1))
}
env_cases=0
mkdir -p "$T/env"
B="MPBENCH_BIN=$bin" D="MPBENCH_SLURM_DIR=$T/env" N=MPBENCH_SLURM_SHARDS A=SLURM_ARRAY_TASK_ID
for v in abc '' 0 -1 '4 ' 10000 1e3 0x10 04; do
    env_bad merge.sbatch "MPBENCH_SLURM_SHARDS='$v'" "$B" "$D" "$N=$v"
    env_bad array.sbatch "MPBENCH_SLURM_SHARDS='$v'" "$B" "$D" "$N=$v" "$A=0"
done
env_bad merge.sbatch "MPBENCH_SLURM_SHARDS is not set" "$B" "$D"
env_bad merge.sbatch "MPBENCH_BIN is not set" "$D" "$N=4"
env_bad merge.sbatch "MPBENCH_BIN='$T/none'" "MPBENCH_BIN=$T/none" "$D" "$N=4"
env_bad merge.sbatch "MPBENCH_SLURM_DIR is not set" "$B" "$N=4"
env_bad merge.sbatch "MPBENCH_SLURM_DIR='$T/none'" "$B" "MPBENCH_SLURM_DIR=$T/none" "$N=4"
env_bad merge.sbatch "MPBENCH_SLURM_TUNED='$bin'" "$B" "$D" "$N=4" "MPBENCH_SLURM_TUNED=$bin"
env_bad array.sbatch "MPBENCH_BIN='$T/env'" "MPBENCH_BIN=$T/env" "$D" "$N=4" "$A=0"
env_bad array.sbatch "MPBENCH_SLURM_DIR='$T/none'" "$B" "MPBENCH_SLURM_DIR=$T/none" "$N=4" "$A=0"
env_bad array.sbatch "SLURM_ARRAY_TASK_ID is not set" "$B" "$D" "$N=4"
for v in abc '' 4 -1; do
    env_bad array.sbatch "SLURM_ARRAY_TASK_ID='$v'" "$B" "$D" "$N=4" "$A=$v"
done
env_bad array.sbatch "SLURM_RESTART_COUNT='x'" "$B" "$D" "$N=4" "$A=3" SLURM_RESTART_COUNT=x
# and good values pass the checks: nothing to merge in an empty directory is exit 1
rc=0
(cd "$T" && env -i PATH="$PATH" "$B" "$D" "$N=4" bash "$root/scripts/slurm/merge.sbatch") >"$T/env/merge.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'nothing to merge' "$T/env/merge.out" ||
    fail "merge.sbatch with a good environment and no parts: exit $rc: $(cat "$T/env/merge.out")"
log "bad environments: array.sbatch and merge.sbatch exit 2 naming the variable and its value ($env_cases cases)"

# --- the cluster ------------------------------------------------------------
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log"
chmod 755 "$T/munge" # munged wants its socket directory reachable
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
sock="$T/munge/munge.sock"
munged -F -f -S "$sock" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
    --seed-file="$T/munge/munged.seed" --log-file="$T/log/munged.log" >>"$T/log/munged.log" 2>&1 &
pids+=($!)
wait_for 20 "munged" sh -c "munge -S '$sock' -n | unmunge -S '$sock'"

port=$(pick_port)
node=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]*//')
nodes=(n1 n2 n3)
cat >"$T/slurm.conf" <<EOF
# written by scripts/slurm/test-slurm.sh: a three-node test cluster on
# 127.0.0.1, one slurmd per node on its own port (multiple-slurmd mode)
ClusterName=mpbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire: a job requeued after a node failure waits this long (+1 s) before
# it may start again (default 120 s)
AuthInfo=socket=$sock,cred_expire=10
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool/%n
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd-%n.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
JobRequeue=1
MinJobAge=600
# a node whose slurmd stops answering is DOWN after about 15 s (pings fail after
# MessageTimeout, DOWN once no answer for SlurmdTimeout), and its jobs requeued
SlurmdTimeout=5
MessageTimeout=5
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 1))$node State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 2))$node State=UNKNOWN
NodeName=n3 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 3))$node State=UNKNOWN
PartitionName=test Nodes=n[1-3] Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
# the user's own Slurm choices must not leak into the test cluster
unset SBATCH_PARTITION SBATCH_CONSTRAINT SBATCH_ACCOUNT SBATCH_QOS SBATCH_TIMELIMIT SBATCH_RESERVATION

slurmctld -D -i -f "$SLURM_CONF" >>"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
wait_for 30 "slurmctld to answer" scontrol ping
[[ "$(scontrol show config)" =~ MULTIPLE_SLURMD\ *=\ *Yes ]] ||
    fail "this Slurm ($(slurmd -V)) was built without --enable-multiple-slurmd: three nodes on one machine need it"
declare -A slurmd_pid
for n in "${nodes[@]}"; do
    mkdir -p "$T/spool/$n"
    # env execs slurmd: $! is slurmd's pid; the variable marks its slurmstepd
    env MPBENCH_TEST_SLURMD="$T:$n:" slurmd -D -N "$n" -f "$SLURM_CONF" >>"$T/log/slurmd-$n.out" 2>&1 &
    pids+=($!)
    slurmd_pid[$n]=$!
done
wait_for 30 "nodes ${nodes[*]} to be idle" sh -c '[ "$(sinfo -h -N -n n1,n2,n3 -o %T | sort -u)" = idle ] && [ "$(sinfo -h -N -n n1,n2,n3 -o %N | wc -l)" = 3 ]'
log "cluster up in $T: slurmctld :$port; slurmd n1 :$((port + 1)), n2 :$((port + 2)), n3 :$((port + 3)); munged $sock; pids ${pids[*]}"

# --- helpers on jobs and databases ------------------------------------------
jstate() { scontrol show job "$1" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }
all_done() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
q() { sqlite3 -batch -noheader "$1" "$2"; }
KEYSQL="SELECT variant||char(9)||params||char(9)||m||char(9)||k||char(9)||n||char(9)||threads FROM results"

# submit OUTDIR SHARDS SWEEP-ARGS...: through the real driver; sets $array and $merge
submit() {
    local out=$1 shards=$2
    shift 2
    mkdir -p "$out"
    OUTDIR=$out SHARDS=$shards MPBENCH=$bin "$root/scripts/slurm/sweep.sh" "$@" >"$out/submit.log" 2>&1 ||
        fail "sweep.sh failed: $(cat "$out/submit.log")"
    sed 's/^/  | /' "$out/submit.log"
    # shellcheck disable=SC1090
    eval "$(cat "$out/jobs" | tr ' ' '\n' | grep -E '^(array|merge)=[0-9]+$')"
    jobs_submitted+=("$array" "$merge")
}

# check OUTDIR SWEEP-ARGS...: the merged database holds exactly the plan's keys
check_merged() {
    local out=$1
    shift
    local db=$out/merged.db
    [ -s "$db" ] || fail "$db was not written"
    [ "$(jstate "$merge")" = COMPLETED ] || fail "merge job $merge ended $(jstate "$merge")"
    "$bin" sweep "$@" --dry-run | grep -v '^#' | sort >"$out/plan.keys"
    q "$db" "$KEYSQL" | sort >"$out/merged.keys"
    local np nm dups integ
    np=$(wc -l <"$out/plan.keys")
    nm=$(wc -l <"$out/merged.keys")
    dups=$(uniq -d <"$out/merged.keys" | wc -l)
    integ=$(q "$db" "PRAGMA integrity_check")
    [ "$np" -gt 0 ] || fail "empty plan"
    diff "$out/plan.keys" <(sort -u "$out/merged.keys") >"$out/keys.diff" ||
        fail "merged keys differ from the unsharded plan's: $(head -n 5 "$out/keys.diff")"
    [ "$dups" = 0 ] || fail "$dups keys stored twice in $db"
    [ "$integ" = ok ] || fail "integrity_check of $db: $integ"
    log "  merged $nm results = the unsharded plan's $np keys, 0 duplicates, integrity_check ok"
}

# --- round 1: a 4-shard array and its merge ---------------------------------
PLAN1=(--variant 'i2_s.scalar,tq2_0.scalar' --shape 64x256,128x256 --n 1,2 --threads 1,2
       --params all --warm --reps 3 --min-time 0.001 --counters none)
log "round 1: 4-shard array sweep (with a parameter grid) + merge job"
export MPBENCH_SLURM_TUNED="$T/tuned" # the merge job's tuned configs, not the repository's
submit "$T/r1" 4 "${PLAN1[@]}"
wait_for 180 "array job $array and merge job $merge to end" all_done "$array,$merge"
for i in 0 1 2 3; do
    s=$(jstate "${array}_$i")
    [ "$s" = COMPLETED ] || fail "array task ${array}_$i ended $s"
done
check_merged "$T/r1" "${PLAN1[@]}"
fp=$("$bin" list machine | sed -n 's/^fingerprint *//p')
conf="$T/tuned/$fp.conf"
[ -f "$conf" ] || fail "the merge job wrote no tuned config $conf"
grep -qx "fingerprint $fp" "$conf" || fail "$conf does not name machine $fp"
nconf=$(grep -c '^i2_s.scalar ' "$conf" || true)
[ "$nconf" = 8 ] || fail "$conf has $nconf i2_s.scalar entries, expected one per point (8)"
log "  merge job wrote $conf (8 tuned keys of i2_s.scalar)"
log "round 1 ok"

# --- round 2: one task cancelled midway, requeued, resumed --------------------
# 16 points of >= 0.7 s each, 4 per shard: after task 1 stored its first point,
# the cancel has two more points' time to arrive before the shard could be done
PLAN2=(--variant 'i2_s.scalar,tq2_0.scalar'
       --shape 64x256,128x256,192x256,256x256,64x512,128x512,192x512,256x512
       --n 1,2 --threads 1 --warm --reps 3 --min-time 0.7 --counters none)
log "round 2: 4-shard array, task 1 cancelled midway and requeued"
submit "$T/r2" 4 "${PLAN2[@]}"
part=$T/r2/part-1.db
shard_total=$("$bin" sweep "${PLAN2[@]}" --dry-run --shard 2/4 | grep -vc '^#' || true)
[ "$shard_total" -gt 1 ] || fail "shard 2/4 of round 2 has $shard_total results"
partial() {
    local n
    n=$(q "$part" "SELECT count(*) FROM results" 2>/dev/null) || return 1
    [ "$n" -gt 0 ] && [ "$n" -lt "$shard_total" ]
}
wait_for 120 "task ${array}_1 to store its first results" partial
scancel "${array}_1"
wait_for 30 "task ${array}_1 to be cancelled" sh -c "scontrol show job ${array}_1 -o | grep -q JobState=CANCELLED"
before=$(q "$part" "SELECT count(*) FROM results")
[ "$before" -gt 0 ] && [ "$before" -lt "$shard_total" ] ||
    fail "task 1 was not cancelled midway ($before of $shard_total results stored)"
log "  cancelled ${array}_1 with $before of $shard_total results of its shard stored"
scontrol requeue "${array}_1"
# Slurm holds a requeued job back for a while (BeginTime); let it start now
scontrol update JobId="${array}_1" StartTime=now
wait_for 240 "array job $array and merge job $merge to end" all_done "$array,$merge"
for i in 0 1 2 3; do
    s=$(jstate "${array}_$i")
    [ "$s" = COMPLETED ] || fail "array task ${array}_$i ended $s"
done
grep -q "attempt 2" "$T/r2/logs/part-1.log" || fail "task 1 did not run a second time"
grep -q "resuming, $before of $shard_total results already stored" "$T/r2/logs/part-1.log" ||
    fail "task 1 did not resume from its $before stored results: $(tail -n 3 "$T/r2/logs/part-1.log")"
runs=$(q "$part" "SELECT group_concat(status, ',') FROM (SELECT status FROM runs ORDER BY id)")
[ "$runs" = "interrupted,ok" ] || fail "part-1.db runs: '$runs', expected 'interrupted,ok'"
log "  ${array}_1 resumed: measured the $((shard_total - before)) missing results only (runs: $runs)"
check_merged "$T/r2" "${PLAN2[@]}"
log "round 2 ok"

# --- round 3: a 6-shard array over three nodes, one node killed mid-task ------
# 18 points of two results of >= 0.7 s each, 3 points per shard: when a task
# has stored its first point, its node's death has two more points' time (at
# least 2.8 s) to arrive before the shard could be done
PLAN3=(--variant 'i2_s.scalar,tq2_0.scalar' --shape 64x256,128x256,192x256,64x512,128x512,192x512 --n 1,2,4
       --threads 1 --warm --reps 3 --min-time 0.7 --counters none)
log "round 3: 6-shard array over nodes ${nodes[*]}, one node killed while it runs a task"
submit "$T/r3" 6 "${PLAN3[@]}"
total3=()
for i in 0 1 2 3 4 5; do
    total3[i]=$("$bin" sweep "${PLAN3[@]}" --dry-run --shard "$((i + 1))/6" | grep -vc '^#' || true)
    [ "${total3[i]}" -gt 1 ] || fail "shard $((i + 1))/6 of round 3 has ${total3[i]} results"
done
# find_victim: a running task with part of its shard stored; sets victim, vnode
find_victim() {
    local i n nd
    for i in 0 1 2 3 4 5; do
        [ "$(jstate "${array}_$i")" = RUNNING ] || continue
        n=$(q "$T/r3/part-$i.db" "SELECT count(*) FROM results" 2>/dev/null) || continue
        [ "$n" -gt 0 ] && [ "$n" -lt "${total3[i]}" ] || continue
        nd=$(squeue -h -j "${array}_$i" -o %N)
        [ -n "$nd" ] && [ -n "${slurmd_pid[$nd]:-}" ] || continue
        victim=$i vnode=$nd
        return 0
    done
    return 1
}
victim='' vnode=''
wait_for 120 "a task of array $array to store part of its shard" find_victim
# the node dies: its slurmd, the task's slurmstepd and the task, one SIGKILL
doomed=$(tagged "$T:$vnode:")
[[ " $doomed " == *" ${slurmd_pid[$vnode]} "* ]] || fail "slurmd of $vnode (${slurmd_pid[$vnode]}) not found among its processes: $doomed"
# shellcheck disable=SC2086 # a list of pids
kill -KILL $doomed
t_kill=$SECONDS
{ wait "${slurmd_pid[$vnode]}"; } 2>/dev/null || true
vpart=$T/r3/part-$victim.db
vtotal=${total3[victim]}
before=$(q "$vpart" "SELECT count(*) FROM results")
[ "$before" -gt 0 ] && [ "$before" -lt "$vtotal" ] ||
    fail "task $victim was not killed midway ($before of $vtotal results stored)"
log "  killed node $vnode (kill -9 of its slurmd ${slurmd_pid[$vnode]}, slurmstepd and task: pids ${doomed% }) while ${array}_$victim ran there with $before of $vtotal results of its shard stored"
wait_for 90 "node $vnode to be declared DOWN" sh -c "sinfo -h -N -n $vnode -o %T | grep -q '^down'"
log "  $vnode DOWN after $((SECONDS - t_kill)) s: $(sinfo -h -N -n "$vnode" -o '%T, reason: %E')"
wait_for 30 "Slurm to requeue ${array}_$victim" \
    grep -q "requeue job JobId=${array}_$victim(.*) due to failure of node $vnode" "$T/log/slurmctld.log"
log "  slurmctld.log: $(grep "requeue job JobId=${array}_$victim(" "$T/log/slurmctld.log" | tail -n 1)"
wait_for 240 "array job $array and merge job $merge to end" all_done "$array,$merge"
for i in 0 1 2 3 4 5; do
    s=$(jstate "${array}_$i")
    [ "$s" = COMPLETED ] || fail "array task ${array}_$i ended $s"
done
restarts=$(scontrol show job "${array}_$victim" -o | grep -o 'Restarts=[0-9]*')
[ "$restarts" = Restarts=1 ] || fail "${array}_$victim: $restarts, expected Restarts=1"
vlog=$T/r3/logs/part-$victim.log
again=$(grep "attempt 2:" "$vlog" | sed -n 's/.* on node \([^ ]*\) .*/\1/p')
[ -n "$again" ] || fail "task $victim did not run a second time: $(tail -n 3 "$vlog")"
[ "$again" != "$vnode" ] || fail "task $victim ran again on the dead node $vnode"
grep -q "resuming, $before of $vtotal results already stored" "$vlog" ||
    fail "task $victim did not resume from its $before stored results: $(tail -n 3 "$vlog")"
runs=$(q "$vpart" "SELECT group_concat(status, ',') FROM (SELECT status FROM runs ORDER BY id)")
[ "$runs" = "interrupted,ok" ] || fail "part-$victim.db runs: '$runs', expected 'interrupted,ok'"
log "  ${array}_$victim requeued by Slurm ($restarts), ran again on $again: measured the $((vtotal - before)) missing results only (runs: $runs)"
# where every attempt ran, from the first line each attempt writes to its log
declare -A ran
for i in 0 1 2 3 4 5; do
    while read -r nd at; do
        if [ "$at" = 1 ]; then ran[$nd]+=" $i"; else ran[$nd]+=" $i(attempt $at)"; fi
    done < <(sed -n 's/.* on node \([^ ]*\) .*, attempt \([0-9]*\):.*/\1 \2/p' "$T/r3/logs/part-$i.log")
done
[ ${#ran[@]} -ge 2 ] || fail "the array ran on ${#ran[@]} node(s) only: ${!ran[*]}"
[ -z "${ran[?]:-}" ] || fail "task(s)${ran[?]} did not know their node (SLURMD_NODENAME)"
per=''
for n in "${nodes[@]}"; do per+="$n:${ran[$n]:- none}; "; done
log "  array tasks per node: ${per%; }"
vstate=$(sinfo -h -N -n "$vnode" -o %T)
[[ "$vstate" == down* ]] || fail "$vnode is no longer down: $vstate"
check_merged "$T/r3" "${PLAN3[@]}"
log "round 3 ok"
log "PASS in $SECONDS s"
