#!/usr/bin/env bash
# Submits what is left of a training run to Slurm as one allocation: a job of WORKERS
# tasks whose batch step is the learner and whose tasks are self-play workers, each a
# job step (run.sh); docs/cluster.md tells the whole story.
#
#   deploy/slurm/submit.sh [OPTIONS] CONFIG WORKDIR WORKERS [SBATCH OPTIONS…]
#
# SBATCH OPTIONS (after the arguments, `--` before them optional) go to the job, e.g.
# --partition=cpu --account=me --time=12:00:00 (a run cut short by its time limit goes
# on from its checkpoint when submitted again).
# OPTIONS:
#   --evalearn FILE     the binary (default: $EVALEARN, else evalearn on the PATH)
#   --cpus N            CPUs (threads) of each worker, and of the learner (default 1)
#   --mem SIZE          memory of each CPU, as sbatch --mem-per-cpu (default 1G)
#   --shards N          shards each iteration is split into (default: twice WORKERS):
#                       more shards even out the workers' speeds
#   --restarts N        times a worker or the learner that ends early is started again,
#                       in all (default 5)
#   --egdb DIR | --no-egdb
#                       the endgame database of the games (default: evalearn's, as
#                       here: $EVALEARN_EGDB, else ./egdb when it exists)
#
# Before anything is submitted it checks the config and the run with `evalearn train
# --plan --workers WORKDIR/pool`, which refuses what the job's learner would (a bad
# config, a samuel run, results without a checkpoint, a finished run: status 2), that
# no job of the run is queued, and with `sbatch --test-only` that the cluster can run
# the request.
# Every path the job gets is absolute and every input is an argument, so it runs the
# same under --export=NONE. The job is named evalearn-MODEL-NUMBER (`squeue --name=…`,
# `scancel --name=…`). Logs: WORKDIR/logs/run.job-J.log and worker-K.job-J.log.
set -euo pipefail

me=submit.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() {
    sed -n '/^# Submits/,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}
# Refuses with status 2 (bad input or state, nothing submitted).
refuse() {
    echo "$me: $*; nothing submitted" >&2
    exit 2
}
count() {
    [[ $2 =~ ^[1-9][0-9]*$ ]] || refuse "$1 '$2': not a positive count"
}

evalearn=${EVALEARN:-}
cpus=1 mem=1G shards='' restarts=5 egdb=()
while (($# > 0)) && [[ $1 == --* || $1 == -h ]]; do
    if [[ $1 == --*=* ]]; then
        set -- "${1%%=*}" "${1#*=}" "${@:2}"
    fi
    option=$1
    case $option in
    -h | --help)
        usage
        exit 0
        ;;
    --no-egdb)
        egdb=(--no-egdb)
        shift
        continue
        ;;
    --evalearn | --cpus | --mem | --shards | --restarts | --egdb) ;;
    --) break ;;
    *) refuse "unknown option $option (see $me --help)" ;;
    esac
    (($# >= 2)) || refuse "$option needs a value"
    value=$2
    shift 2
    case $option in
    --evalearn) evalearn=$value ;;
    --cpus) count "$option" "$value" && cpus=$value ;;
    --mem) mem=$value ;;
    --shards) count "$option" "$value" && shards=$value ;;
    --restarts) [[ $value =~ ^[0-9]+$ ]] || refuse "--restarts '$value': not a count"
        restarts=$value ;;
    --egdb) egdb=(--egdb "$value") ;;
    esac
done
if (($# < 3)); then
    usage >&2
    exit 2
fi
config=$1 work=$2 workers=$3
shift 3
count WORKERS "$workers"
shards=${shards:-$((2 * workers))}
if (($# > 0)) && [[ $1 == -- ]]; then
    shift
fi
job_options=()
for option in "$@"; do
    case $option in
    --ntasks* | -n* | --cpus-per-task* | -c* | --job-name* | -J* | --output* | -o* | \
        --error* | -e* | --chdir* | -D* | --parsable | --test-only | --wrap* | --array* | -a*)
        refuse "$option: submit.sh sets the job's tasks, CPUs, name, log, folder and array" \
            "itself (use WORKERS and --cpus)"
        ;;
    *) job_options+=("$option") ;;
    esac
done

# The binary, absolute: the job runs it on other machines, maybe with another PATH.
if [[ -z $evalearn ]]; then
    evalearn=$(command -v evalearn) ||
        refuse "no evalearn binary: give --evalearn FILE (or EVALEARN=FILE), on a" \
            "filesystem every node sees"
fi
[[ -f $evalearn && -x $evalearn ]] || refuse "--evalearn $evalearn: not an executable file"
evalearn=$(realpath "$evalearn")

# The config and the run's state, before anything else: evalearn says what is wrong.
# With the learner's --workers, the plan refuses exactly what the learner would.
if ! plan=$("$evalearn" train --config "$config" --plan --workers "$work/pool" \
    ${egdb[@]+"${egdb[@]}"}); then
    refuse "evalearn train --config $config --plan refused the run (its message above)"
fi
plan_value() { sed -n "s/^$1 //p" <<<"$plan"; }
model=$(plan_value model)
database=$(plan_value egdb)
[[ -n $model && -n $database ]] ||
    refuse "$evalearn train --plan printed something else than a plan: is it evalearn?"
if [[ $database == none ]]; then
    egdb=(--no-egdb)
else
    egdb=(--egdb "$database")
fi
config=$(realpath "$config")
mkdir -p "$work/logs"
work=$(realpath "$work")

# One job per run: the run's jobs share a name, none may be queued, and the lock keeps
# two submissions from passing that check together.
if [[ -f $work/run ]] && [[ $(<"$work/run") != "$model" ]]; then
    refuse "WORKDIR $work belongs to the run of $(<"$work/run"), not to $model: give each" \
        "run its own"
fi
echo "$model" >"$work/run"
exec 9>>"$work/submit.lock"
flock -n 9 || refuse "another submit.sh is submitting the run of $work"
stem=${model##*/}
name=evalearn-${stem%.*}-$(printf %s "$model" | cksum | cut -d ' ' -f 1)
if ! queued=$(squeue -h --name="$name" --user="$(id -un)" -o %i); then
    echo "$me: squeue failed: cannot tell whether a job of this run is queued" >&2
    exit 1
fi
if [[ -n $queued ]]; then
    refuse "a job of this run is queued or running ($name: $(tr '\n' ' ' <<<"$queued")); wait" \
        "for it, or cancel it with: scancel --name=$name"
fi

job=(--job-name="$name" --chdir="$PWD" --ntasks="$workers" --cpus-per-task="$cpus"
    --mem-per-cpu="$mem" ${job_options[@]+"${job_options[@]}"})
script=("$here/run.sh" "$evalearn" "$config" "$work" "$shards" "$restarts" "${egdb[@]}")
# A request that could never start (more CPUs or memory than the cluster has, no such
# partition) would pend for ever: ask the scheduler first.
if ! out=$(sbatch --test-only "${job[@]}" "${script[@]}" 2>&1); then
    refuse "the job ($workers worker(s) of $cpus CPU(s)) cannot run on this cluster: $out"
fi
sed -n 1p <<<"$plan"
if ! out=$(sbatch --parsable "${job[@]}" --output="$work/logs/run.job-%j.log" \
    "${script[@]}") || [[ ! ${out%%;*} =~ ^[0-9]+$ ]]; then
    echo "$me: sbatch failed${out:+ (it printed: $out)}" >&2
    exit 1
fi
id=${out%%;*}
echo "submitted job $id ($name): the learner and $workers worker(s) of $cpus CPU(s)," \
    "$shards shards an iteration; log $work/logs/run.job-$id.log; cancel with: scancel $id"
