#!/usr/bin/env bash
# The fitting half of one training iteration, after its selfplay-shard.sh array job:
#   sbatch --dependency=afterok:ARRAYJOB fit.sh EVALEARN CONFIG WORKDIR N [--egdb DIR | --no-egdb]
# (submit.sh writes these calls). Merges the N shards of the next iteration from
# WORKDIR/shards/STATE (see selfplay-shard.sh) into merged.ds there, learns from them
# with `train --from-dataset` (model revision, evaluation match on schedule, metrics,
# curve and checkpoint beside the config's model; threads: SLURM_CPUS_PER_TASK), then
# removes that folder. A missing shard stops it with status 2 before anything is
# learned: submit.sh run again plays only the missing shards. When no iteration is left
# after this one (budget.iterations done, or budget.minutes of fitting used), it cancels
# the chain's jobs still pending (its job name) rather than let them fail.
set -euo pipefail

usage="usage: fit.sh EVALEARN CONFIG WORKDIR SHARDS [--egdb DIR | --no-egdb]"
if (($# < 4)); then
    echo "$usage" >&2
    exit 2
fi
evalearn=$1 config=$2 work=$3 count=$4
shift 4
if [[ ! $count =~ ^[1-9][0-9]*$ ]]; then
    echo "fit.sh: SHARDS '$count' is not a count" >&2
    exit 2
fi
threads=()
if [[ -n ${SLURM_CPUS_PER_TASK:-} ]]; then
    threads=(--threads "$SLURM_CPUS_PER_TASK")
fi

plan=$("$evalearn" train --config "$config" --plan "$@")
sed -n 1p <<<"$plan"
next=$(sed -n 's/^next_iteration //p' <<<"$plan")
dir=$work/shards/$(sed -n 's/^state //p' <<<"$plan")
shards=()
missing=()
for index in $(seq 1 "$count"); do
    shard=$dir/shard-$index-of-$count.ds
    if [[ -f $shard ]]; then
        shards+=("$shard")
    else
        missing+=("$index")
    fi
done
if ((${#missing[@]} > 0)); then
    echo "fit.sh: iteration $next: shard ${missing[*]} of $count is missing from $dir" \
        "(failed?); nothing learned. Run submit.sh again: it plays only the missing shards" >&2
    exit 2
fi
# The first iteration starts a run; every later one continues its checkpoint.
resume=()
if ((next > 1)); then
    resume=(--resume)
fi
"$evalearn" dataset merge --out "$dir/merged.ds" "${shards[@]}"
"$evalearn" train --config "$config" --from-dataset "$dir/merged.ds" \
    ${resume[@]+"${resume[@]}"} ${threads[@]+"${threads[@]}"} "$@"
rm -f "$dir/merged.ds" "${shards[@]}"
# Left behind only with what a killed shard leaves (submit.sh clears it later).
rmdir "$dir" 2>/dev/null || true

if ! after=$("$evalearn" train --config "$config" --plan "$@" 2>&1); then
    echo "fit.sh: the run stops after iteration $next: ${after#error: }"
    if [[ -n ${SLURM_JOB_NAME:-} ]]; then
        scancel --name="$SLURM_JOB_NAME" --user="$(id -un)" --state=PENDING
    fi
fi
