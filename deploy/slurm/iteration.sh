#!/usr/bin/env bash
# One half of the next iteration of a training run, as a Slurm job (submit.sh writes
# these calls; docs/cluster.md tells the whole story):
#   sbatch --array=1-N iteration.sh shard EVALEARN CONFIG WORKDIR N [--egdb DIR | --no-egdb]
#   sbatch --dependency=afterok:ARRAYJOB iteration.sh fit EVALEARN CONFIG WORKDIR N […]
# shard: array task I plays the games of the run's next iteration whose number is I-1
#   mod N, with the model of the run's checkpoint, into WORKDIR/shards/STATE/
#   shard-I-of-N.ds (STATE: the key `evalearn train --plan` gives the checkpoint and
#   config the games are played from); the file appears only once the shard is
#   complete. `--array=2` plays shard 2 alone again.
# fit: merges the N shards into merged.ds there and learns from them with `train
#   --from-dataset` (model revision, evaluation match on schedule, metrics, curve and
#   checkpoint beside the config's model), then removes them. A missing shard stops it
#   with status 2 before anything is learned (submit.sh run again plays only the missing
#   shards). When no iteration is left after this one (budget.iterations done, or
#   budget.minutes of fitting used), it cancels the chain's jobs still pending (its job
#   name) rather than let them fail.
# Threads: SLURM_CPUS_PER_TASK (the results do not depend on it). A finished run or a
# bad config exits with status 2. Everything comes as arguments, nothing from the
# environment but Slurm's, so the jobs run as well under --export=NONE. Outside Slurm:
#   SLURM_ARRAY_TASK_ID=I bash iteration.sh shard …;  bash iteration.sh fit …
set -euo pipefail

usage="usage: iteration.sh shard|fit EVALEARN CONFIG WORKDIR SHARDS [--egdb DIR | --no-egdb]"
if (($# < 5)) || [[ $1 != shard && $1 != fit ]]; then
    echo "$usage" >&2
    exit 2
fi
half=$1 evalearn=$2 config=$3 work=$4 count=$5
shift 5
if [[ ! $count =~ ^[1-9][0-9]*$ ]]; then
    echo "iteration.sh: SHARDS '$count' is not a count" >&2
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

if [[ $half == shard ]]; then
    index=${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch --array=1-N}
    if ((index < 1 || index > count)); then
        echo "iteration.sh: shard $index of $count: no such shard" >&2
        exit 2
    fi
    shard=$dir/shard-$index-of-$count.ds
    mkdir -p "$dir"
    "$evalearn" selfplay --config "$config" --shard "$index/$count" \
        ${threads[@]+"${threads[@]}"} --out "$shard.part" "$@"
    mv "$shard.part" "$shard"
    exit 0
fi

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
    echo "iteration.sh: iteration $next: shard ${missing[*]} of $count is missing from" \
        "$dir (failed?); nothing learned. Run submit.sh again: it plays only the missing" \
        "shards" >&2
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
    echo "iteration.sh: the run stops after iteration $next: ${after#error: }"
    if [[ -n ${SLURM_JOB_NAME:-} ]]; then
        scancel --name="$SLURM_JOB_NAME" --user="$(id -un)" --state=PENDING
    fi
fi
