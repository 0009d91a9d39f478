#!/usr/bin/env bash
# Submits ROUNDS training iterations of CONFIG, each as an array job of SHARDS
# self-play shards (selfplay-shard.sh) followed by one fitting job (fit.sh), every job
# waiting for the one before:
#   EVALEARN=/shared/bin/evalearn deploy/slurm/submit.sh CONFIG WORKDIR SHARDS ROUNDS [SBATCH OPTIONS…]
# CONFIG, WORKDIR, the config's model folder and the binary must be on a filesystem
# every node sees. Extra arguments go to every sbatch call (e.g. --partition=cpu).
# SBATCH names the submit command (default sbatch).
set -euo pipefail

config=${1:?usage: submit.sh CONFIG WORKDIR SHARDS ROUNDS [SBATCH OPTIONS…]}
work=${2:?usage: submit.sh CONFIG WORKDIR SHARDS ROUNDS [SBATCH OPTIONS…]}
shards=${3:?usage: submit.sh CONFIG WORKDIR SHARDS ROUNDS [SBATCH OPTIONS…]}
rounds=${4:?usage: submit.sh CONFIG WORKDIR SHARDS ROUNDS [SBATCH OPTIONS…]}
shift 4
sbatch=${SBATCH:-sbatch}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The jobs run elsewhere: give them absolute paths and the binary.
config=$(realpath "$config")
mkdir -p "$work"
work=$(realpath "$work")
export EVALEARN=${EVALEARN:-$(command -v evalearn)}

# `sbatch --parsable` prints JOBID or JOBID;CLUSTER.
job_id() { local out; out=$("$@"); echo "${out%%;*}"; }

after=()
for round in $(seq 1 "$rounds"); do
    array=$(job_id "$sbatch" --parsable ${after[@]+"${after[@]}"} --array="1-$shards" "$@" \
        "$here/selfplay-shard.sh" "$config" "$work")
    fit=$(job_id "$sbatch" --parsable --dependency="afterok:$array" "$@" \
        "$here/fit.sh" "$config" "$work" "$shards")
    echo "round $round: self-play array job $array ($shards shards), fitting job $fit"
    after=(--dependency="afterok:$fit")
done
