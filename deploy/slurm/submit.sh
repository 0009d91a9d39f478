#!/usr/bin/env bash
# Submits what is left of a training run to Slurm: per iteration, an array job of SHARDS
# self-play shards and a fitting job after it (iteration.sh shard, iteration.sh fit),
# each iteration after the one before; docs/cluster.md tells the whole story.
#
#   deploy/slurm/submit.sh [OPTIONS] CONFIG WORKDIR SHARDS [ROUNDS] [SBATCH OPTIONS…]
#
# ROUNDS: iterations to submit, at most (and by default) the ones the run has left.
# SBATCH OPTIONS (after the arguments, `--` before them optional) go to every job, e.g.
# --partition=cpu --account=me; a --dependency among them holds the first job.
# OPTIONS:
#   --evalearn FILE       the binary (default: $EVALEARN, else evalearn on the PATH)
#   --shard-cpus N        CPUs (threads) of each shard (default 1)
#   --shard-mem SIZE      memory of each shard, as sbatch --mem (default 1G)
#   --shard-time TIME     time limit of each shard, as sbatch --time (default: the
#                         partition's)
#   --fit-cpus N, --fit-mem SIZE, --fit-time TIME
#                         the same for each fitting job (defaults 1, 2G, the partition's)
#   --shard-sbatch OPTION, --fit-sbatch OPTION
#                         one more sbatch option for the shards or the fitting jobs only
#                         (repeat for more), e.g. --fit-sbatch --partition=bigmem
#   --egdb DIR | --no-egdb
#                         the endgame database of the games (default: evalearn's, as
#                         here: $EVALEARN_EGDB, else ./egdb when it exists); the jobs get
#                         it as an argument
#
# Before anything is submitted it checks the config and the run with `evalearn train
# --plan` (a bad config, a samuel run or a finished run: status 2), that no chain of the
# run is queued, and with `sbatch --test-only` that the cluster can run the requests.
# Every path the jobs get is absolute and every input is an argument, so jobs run the
# same under --export=NONE. The jobs share the name evalearn-MODEL-NUMBER: `squeue
# --name=…` lists them and `scancel --name=…` cancels the chain. Logs:
# WORKDIR/logs/iteration-I.shard-S.job-J.log and iteration-I.fit.job-J.log. A shard
# that fails cancels the rest of the chain (--kill-on-invalid-dep=yes); run submit.sh
# again and it plays only the shards missing, then goes on.
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
shard_cpus='' shard_mem='' shard_time='' fit_cpus='' fit_mem='' fit_time=''
shard_extra=() fit_extra=() egdb=()
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
    --evalearn | --shard-cpus | --shard-mem | --shard-time | --fit-cpus | --fit-mem | \
        --fit-time | --shard-sbatch | --fit-sbatch | --egdb) ;;
    *) refuse "unknown option $option (see $me --help)" ;;
    esac
    (($# >= 2)) || refuse "$option needs a value"
    value=$2
    shift 2
    case $option in
    --evalearn) evalearn=$value ;;
    --shard-cpus) count "$option" "$value" && shard_cpus=$value ;;
    --shard-mem) shard_mem=$value ;;
    --shard-time) shard_time=$value ;;
    --fit-cpus) count "$option" "$value" && fit_cpus=$value ;;
    --fit-mem) fit_mem=$value ;;
    --fit-time) fit_time=$value ;;
    --shard-sbatch) shard_extra+=("$value") ;;
    --fit-sbatch) fit_extra+=("$value") ;;
    --egdb) egdb=(--egdb "$value") ;;
    esac
done
if (($# < 3)); then
    usage >&2
    exit 2
fi
config=$1 work=$2 shards=$3
shift 3
count SHARDS "$shards"
rounds=''
if (($# > 0)) && [[ $1 =~ ^[0-9]+$ ]]; then
    rounds=$1
    shift
    ((rounds > 0)) || refuse "ROUNDS 0: no iteration to submit"
fi
if (($# > 0)) && [[ $1 == -- ]]; then
    shift
elif (($# > 0)) && [[ $1 != -* ]]; then
    refuse "ROUNDS '$1': not a count"
fi

# The sbatch options for every job: submit.sh sets some itself, and the chain's
# ordering must survive a user's --dependency (sbatch keeps the last one given).
every=() first_dependency=''
while (($# > 0)); do
    option=$1
    shift
    case $option in
    --dependency | -d)
        (($# > 0)) || refuse "$option needs a value"
        first_dependency=$1
        shift
        ;;
    --dependency=*) first_dependency=${option#*=} ;;
    -d?*) first_dependency=${option#-d} ;;
    --array* | -a* | --job-name* | -J* | --output* | -o* | --error* | -e* | --chdir* | \
        -D* | --kill-on-invalid-dep* | --parsable | --test-only | --wrap*)
        refuse "$option: submit.sh sets the jobs' array, name, logs, folder and dependency" \
            "handling itself"
        ;;
    *) every+=("$option") ;;
    esac
done
if [[ $first_dependency == *\?* ]]; then
    refuse "--dependency=$first_dependency: join the conditions with ',' (all of them)," \
        "not '?', so the chain's own can be added"
fi

# The binary, absolute: the jobs run it on other machines, maybe with another PATH.
if [[ -z $evalearn ]]; then
    evalearn=$(command -v evalearn) ||
        refuse "no evalearn binary: give --evalearn FILE (or EVALEARN=FILE), on a" \
            "filesystem every node sees"
fi
[[ -f $evalearn && -x $evalearn ]] || refuse "--evalearn $evalearn: not an executable file"
evalearn=$(realpath "$evalearn")

# The config and the run's state, before anything else: evalearn says what is wrong.
if ! plan=$("$evalearn" train --config "$config" --plan ${egdb[@]+"${egdb[@]}"}); then
    refuse "evalearn train --config $config --plan refused the run (its message above)"
fi
plan_value() { sed -n "s/^$1 //p" <<<"$plan"; }
next=$(plan_value next_iteration)
left=$(plan_value rounds_left)
state=$(plan_value state)
model=$(plan_value model)
database=$(plan_value egdb)
[[ $next =~ ^[0-9]+$ && $left =~ ^[0-9]+$ && $state =~ ^[0-9a-f]{16}$ && -n $model ]] ||
    refuse "$evalearn train --plan printed something else than a plan: is it evalearn?"
if [[ -z $rounds ]]; then
    rounds=$left
elif ((rounds > left)); then
    refuse "ROUNDS $rounds: the run has $left iteration(s) left (next: $next); raise" \
        "budget.iterations in $config to go further"
fi
if [[ $database == none ]]; then
    egdb=(--no-egdb)
else
    egdb=(--egdb "$database")
fi
config=$(realpath "$config")
mkdir -p "$work"
work=$(realpath "$work")

# One chain per run: the run's jobs share a name, none may be queued, and the lock
# keeps two submissions from passing that check together.
mkdir -p "$work/logs" "$work/shards"
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
    echo "$me: squeue failed: cannot tell whether a chain of this run is queued" >&2
    exit 1
fi
if [[ -n $queued ]]; then
    refuse "jobs of this run are queued or running ($name: $(tr '\n' ' ' <<<"$queued")); wait for" \
        "them, or cancel them with: scancel --name=$name"
fi

# Shards are kept per state: those of the next iteration's state are played already
# (a chain that failed part-way), any other folder is from an earlier state.
dir=$work/shards/$state
shopt -s nullglob
for old in "$work"/shards/*; do
    if [[ $old != "$dir" ]]; then
        echo "$me: removing $old (shards played from an earlier state of the run)"
        rm -rf "$old"
    fi
done
todo=()
for index in $(seq 1 "$shards"); do
    [[ -f $dir/shard-$index-of-$shards.ds ]] || todo+=("$index")
done

job_args=("$evalearn" "$config" "$work" "$shards" "${egdb[@]}")
# Per kind: the defaults, the options of every job, then the kind's own options.
resources() { # CPUS MEM TIME DEFAULT_MEM
    local before=() after=()
    if [[ -n $1 ]]; then after+=(--cpus-per-task="$1"); else before+=(--cpus-per-task=1); fi
    if [[ -n $2 ]]; then after+=(--mem="$2"); else before+=(--mem="$4"); fi
    if [[ -n $3 ]]; then after+=(--time="$3"); fi
    printf '%s\n' "${before[@]}" ${every[@]+"${every[@]}"} "${after[@]}"
}
common=(--chdir="$PWD" --job-name="$name" --kill-on-invalid-dep=yes)
mapfile -t shard_opts < <(resources "$shard_cpus" "$shard_mem" "$shard_time" 1G)
mapfile -t fit_opts < <(resources "$fit_cpus" "$fit_mem" "$fit_time" 2G)
shard_opts=("${common[@]}" "${shard_opts[@]}" ${shard_extra[@]+"${shard_extra[@]}"})
fit_opts=("${common[@]}" "${fit_opts[@]}" ${fit_extra[@]+"${fit_extra[@]}"})

# Jobs that could never start (more CPUs or memory than a node has, no such partition)
# would pend for ever: ask the scheduler first.
try() { # WHAT SBATCH ARGS…
    local what=$1 out
    shift
    out=$(sbatch --test-only "$@" 2>&1) || refuse "$what cannot run on this cluster: $out"
}
try "a shard (${shard_opts[*]:3})" "${shard_opts[@]}" --array=1 "$here/iteration.sh" \
    shard "${job_args[@]}"
try "the fitting job (${fit_opts[*]:3})" "${fit_opts[@]}" "$here/iteration.sh" \
    fit "${job_args[@]}"

sed -n 1p <<<"$plan"
# Submits one job; its id in $job. On failure the rounds before stand as a whole chain.
submitted=0 job=''
submit() {
    local out
    if ! out=$(sbatch --parsable "$@") || [[ ! ${out%%;*} =~ ^[0-9]+$ ]]; then
        [[ -z $array ]] || scancel "$array" || true
        echo "$me: sbatch failed${out:+ (it printed: $out)}; submitted $submitted of $rounds" \
            "iterations${array:+, cancelled the lone shards job $array}" >&2
        exit 1
    fi
    job=${out%%;*}
}
dependency=$first_dependency
for ((round = 1; round <= rounds; round++)); do
    iteration=$((next + round - 1))
    log=$work/logs/iteration-$iteration
    array=''
    text="all $shards shards played already"
    if ((round > 1 || ${#todo[@]} > 0)); then
        spec=1-$shards
        text="$shards shards"
        if ((round == 1 && ${#todo[@]} < shards)); then
            spec=$(IFS=,; echo "${todo[*]}")
            text="shard $spec of $shards, the others played already"
        fi
        submit "${shard_opts[@]}" --array="$spec" --output="$log.shard-%a.job-%A.log" \
            ${dependency:+--dependency="$dependency"} "$here/iteration.sh" shard "${job_args[@]}"
        array=$job
        dependency=afterok:$array
    fi
    # singleton: no two jobs of the run fit at once, even ones submitted by hand.
    submit "${fit_opts[@]}" --dependency="${dependency:+$dependency,}singleton" \
        --output="$log.fit.job-%j.log" "$here/iteration.sh" fit "${job_args[@]}"
    dependency=afterok:$job
    submitted=$round
    echo "iteration $iteration: shards job ${array:-none} ($text), fitting job $job"
done
echo "submitted $rounds iteration(s) as jobs named $name; logs in $work/logs;" \
    "cancel with: scancel --name=$name"
