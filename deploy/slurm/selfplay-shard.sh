#!/usr/bin/env bash
# One shard of the next iteration of a training run, as a task of a Slurm array job:
#   sbatch --array=1-N selfplay-shard.sh EVALEARN CONFIG WORKDIR N [--egdb DIR | --no-egdb]
# (submit.sh writes these calls; `--array=2` re-plays shard 2 alone). Task I plays the
# games of the run's next iteration whose number is I-1 mod N, with the model of the
# run's checkpoint, into WORKDIR/shards/STATE/shard-I-of-N.ds, STATE being the key
# `evalearn train --plan` gives the checkpoint and config the games are played from;
# the file appears only once the shard is complete. Threads: SLURM_CPUS_PER_TASK (the
# games do not depend on it). A finished run or a bad config exits with status 2.
# Everything comes as arguments, nothing from the environment but Slurm's, so the job
# runs as well under --export=NONE. Outside Slurm: SLURM_ARRAY_TASK_ID=I bash …
set -euo pipefail

usage="usage: selfplay-shard.sh EVALEARN CONFIG WORKDIR SHARDS [--egdb DIR | --no-egdb]"
if (($# < 4)); then
    echo "$usage" >&2
    exit 2
fi
evalearn=$1 config=$2 work=$3 count=$4
shift 4
index=${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch --array=1-N}
if [[ ! $count =~ ^[1-9][0-9]*$ ]] || ((index < 1 || index > count)); then
    echo "selfplay-shard.sh: shard $index of '$count': SHARDS must be a count from $index up" >&2
    exit 2
fi
threads=()
if [[ -n ${SLURM_CPUS_PER_TASK:-} ]]; then
    threads=(--threads "$SLURM_CPUS_PER_TASK")
fi

plan=$("$evalearn" train --config "$config" --plan "$@")
sed -n 1p <<<"$plan"
dir=$work/shards/$(sed -n 's/^state //p' <<<"$plan")
shard=$dir/shard-$index-of-$count.ds
mkdir -p "$dir"
"$evalearn" selfplay --config "$config" --shard "$index/$count" ${threads[@]+"${threads[@]}"} \
    --out "$shard.part" "$@"
mv "$shard.part" "$shard"
