#!/usr/bin/env bash
# sweep.sh - run an mpbench sweep on a Slurm cluster: submits a job array, one
# task per shard (array.sbatch), and a merge job that runs after all of them
# (merge.sbatch, --dependency=afterany), then prints how to follow them.
#
#   [SHARDS=N] [OUTDIR=DIR] [MPBENCH=BIN] scripts/slurm/sweep.sh SWEEP-ARGS...
#
# SWEEP-ARGS are `mpbench sweep`'s (without --shard, --db, --dry-run).  Where the
# tasks run is sbatch's business: set SBATCH_PARTITION, SBATCH_CONSTRAINT,
# SBATCH_TIMELIMIT, SBATCH_ACCOUNT, SBATCH_QOS as for any sbatch.  The arguments
# are checked (`mpbench sweep --dry-run`) before anything is submitted; if the
# merge job cannot be submitted the array is cancelled.  Running it again with
# the same OUTDIR resumes: every shard measures only what its part database lacks.
#
# Lands in OUTDIR (default results/slurm/sweep-UTCDATE): part-I.db per array
# task I (shard I+1/N), merged.db, logs/part-I.log and logs/merge.log, and jobs
# (the two job ids); a sweep with --params all also gives results/tuned/
# FINGERPRINT.conf per CPU kind (MPBENCH_SLURM_TUNED=DIR elsewhere).  Exit 2 on
# bad input, 1 if sbatch fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$root/scripts/slurm"
die() { echo "sweep.sh: $*" >&2; exit 2; }

[ $# -gt 0 ] || die "usage: [SHARDS=N] [OUTDIR=DIR] [MPBENCH=BIN] scripts/slurm/sweep.sh SWEEP-ARGS..."
for a in "$@"; do
    case "$a" in
        --shard|--shard=*|--db|--db=*|--dry-run)
            die "'$a': the array sets --shard and --db per task; give only the sweep's own arguments" ;;
    esac
done
shards=${SHARDS:-4}
[[ "$shards" =~ ^[1-9][0-9]{0,3}$ ]] || die "SHARDS='$shards' is not a number of array tasks in 1..9999"
bin=${MPBENCH:-$root/mpbench}
[ -x "$bin" ] || die "MPBENCH='$bin' is not an executable (build with make, or set MPBENCH)"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
command -v sbatch >/dev/null || die "sbatch not found: this needs a Slurm cluster (see README, 'Slurm')"

# The plan, checked here so that bad arguments fail now and not in N tasks.
cd "$root"
plan=$("$bin" sweep "$@" --dry-run --shard "1/$shards") || exit 2
summary=$(printf '%s\n' "$plan" | tail -n 1)
points=$(printf '%s\n' "$summary" | sed -n 's/.* = \([0-9]*\) points.*/\1/p')
[ -n "$points" ] || die "cannot read the plan's size from: $summary"
[ "$points" -ge "$shards" ] || die "SHARDS=$shards but the sweep has only $points points: some tasks would have nothing to do"
echo "plan: ${summary#\# }"

outdir=${OUTDIR:-$root/results/slurm/sweep-$(date -u +%Y%m%d-%H%M%S)}
created=0
[ -d "$outdir" ] || created=1
mkdir -p "$outdir/logs" || die "OUTDIR='$outdir': cannot create it"
outdir=$(cd "$outdir" && pwd)
# nothing submitted: leave no empty OUTDIR behind
undo() { [ $created = 1 ] && rmdir "$outdir/logs" "$outdir" 2>/dev/null; return 0; }

export MPBENCH_BIN="$bin" MPBENCH_SLURM_DIR="$outdir" MPBENCH_SLURM_SHARDS="$shards"
array=$(sbatch --parsable --array="0-$((shards - 1))" --chdir="$root" --export=ALL \
            --output="$outdir/logs/part-%a.log" "$here/array.sbatch" "$@") ||
    { undo; echo "sweep.sh: sbatch of the array failed" >&2; exit 1; }
array=${array%%;*}
if ! merge=$(sbatch --parsable --dependency="afterany:$array" --kill-on-invalid-dep=no \
                 --chdir="$root" --export=ALL --output="$outdir/logs/merge.log" \
                 "$here/merge.sbatch"); then
    scancel "$array" || true
    echo "sweep.sh: sbatch of the merge job failed: array job $array cancelled" >&2
    exit 1
fi
merge=${merge%%;*}
printf 'array=%s merge=%s shards=%s\n' "$array" "$merge" "$shards" > "$outdir/jobs"

cat <<MSG
submitted: array job $array ($shards tasks: task I runs shard I+1/$shards into $outdir/part-I.db)
           merge job $merge (after every task ends: $outdir/merged.db, and with --params all
           ${MPBENCH_SLURM_TUNED:-results/tuned}/FINGERPRINT.conf per CPU kind)
follow:    squeue -j $array,$merge
           tail -f $outdir/logs/*.log
           scontrol show job $array        (per task: state, node, restarts)
merge again (e.g. after a requeue), by hand:
           $bin merge $outdir/merged.db $outdir/part-*.db
resume everything missing later: OUTDIR=$outdir SHARDS=$shards $0 $(printf '%q ' "$@")
MSG
