#!/usr/bin/env bash
# The fitting half of one training iteration, after its selfplay-shard.sh array job:
#   sbatch --dependency=afterok:ARRAYJOB fit.sh CONFIG WORKDIR SHARDS
# Merges the SHARDS shard datasets of WORKDIR/shards into WORKDIR/merged.ds, learns from
# them with `train --from-dataset` (model revision, evaluation match on schedule,
# metrics, curve and checkpoint beside the config's model), then removes the shards so
# the next iteration's cannot mix with them.
#SBATCH --job-name=evalearn-fit
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=evalearn-fit-%j.log
set -euo pipefail

config=${1:?usage: fit.sh CONFIG WORKDIR SHARDS}
work=${2:?usage: fit.sh CONFIG WORKDIR SHARDS}
count=${3:?usage: fit.sh CONFIG WORKDIR SHARDS}
evalearn=${EVALEARN:-evalearn}

shards=()
for index in $(seq 1 "$count"); do
    shard="$work/shards/shard-$index-of-$count.ds"
    if [[ ! -f $shard ]]; then
        echo "fit.sh: $shard is missing (did shard $index of $count fail?)" >&2
        exit 2
    fi
    shards+=("$shard")
done
"$evalearn" dataset merge --out "$work/merged.ds" "${shards[@]}"
"$evalearn" train --config "$config" --from-dataset "$work/merged.ds"
rm -f "${shards[@]}"
