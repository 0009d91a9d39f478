#!/usr/bin/env bash
# One shard of the next iteration of a training run, as a Slurm array task:
#   sbatch --array=1-N selfplay-shard.sh CONFIG WORKDIR
# Task I of N plays the iteration's games whose number is I-1 mod N with the model of
# the run's checkpoint (WORKDIR and the config's model folder on a shared filesystem),
# and writes WORKDIR/shards/shard-I-of-N.ds for fit.sh to merge.
# Outside Slurm: SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 bash selfplay-shard.sh …
#SBATCH --job-name=evalearn-selfplay
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=evalearn-selfplay-%A-%a.log
set -euo pipefail

config=${1:?usage: selfplay-shard.sh CONFIG WORKDIR}
work=${2:?usage: selfplay-shard.sh CONFIG WORKDIR}
evalearn=${EVALEARN:-evalearn}
index=${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch --array=1-N}
count=${SLURM_ARRAY_TASK_COUNT:?not an array task: submit with sbatch --array=1-N}
# The games do not depend on the thread count: use what Slurm gave the task.
threads=${SLURM_CPUS_PER_TASK:-0}

mkdir -p "$work/shards"
exec "$evalearn" selfplay --config "$config" --shard "$index/$count" \
    --threads "$threads" --out "$work/shards/shard-$index-of-$count.ds"
