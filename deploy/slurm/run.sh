#!/usr/bin/env bash
# A whole training run as one Slurm allocation (submit.sh writes this call; docs/cluster.md
# tells the whole story):
#   sbatch --ntasks=W --cpus-per-task=C run.sh EVALEARN CONFIG WORKDIR SHARDS RESTARTS \
#       [--egdb DIR | --no-egdb]
# The learner runs here, in the batch step: `evalearn train --config CONFIG --workers
# WORKDIR/pool --shards SHARDS`. Each of the W tasks is a worker, a job step of its own:
# `srun --ntasks=1 --exact evalearn selfplay --config CONFIG --worker WORKDIR/pool`,
# playing the shards of every iteration as the learner publishes them, with C threads.
# They hand games and model revisions to each other through WORKDIR/pool (claims,
# shards written whole, the checkpoint): the model is the one `evalearn train` makes.
#
# A worker that ends before the run (killed, its step cancelled with scancel) loses only
# the games it was playing, which another worker plays again; it is started again, up to
# RESTARTS times in all. A learner that ends without finishing (killed) is started again
# (it resumes from its checkpoint and finds the shards already played), up to RESTARTS
# times. A learner that refuses the run (status 2: a bad or finished config) is not.
# When the learner or every worker cannot go on, the job ends with status 1 and says
# why; nothing waits for ever. Logs: WORKDIR/logs/worker-K.job-J.log beside the job's
# own. Everything comes as arguments, nothing from the environment but Slurm's.
set -euo pipefail

me=run.sh
if (($# < 5)); then
    echo "usage: $me EVALEARN CONFIG WORKDIR SHARDS RESTARTS [--egdb DIR | --no-egdb]" >&2
    exit 2
fi
evalearn=$1 config=$2 work=$3 shards=$4 restarts=$5
shift 5
for count in "$shards" "$restarts"; do
    [[ $count =~ ^[0-9]+$ ]] || { echo "$me: '$count' is not a count" >&2; exit 2; }
done
workers=${SLURM_NTASKS:-1}
cpus=${SLURM_CPUS_PER_TASK:-1}
job=${SLURM_JOB_ID:-local}
pool=$work/pool
mkdir -p "$pool" "$work/logs"
say() { echo "$me: $(date +%T) $*"; }

# Worker K's pid (its srun) and what it costs to start it again.
declare -A pid
restarts_left=$restarts
start_worker() { # K EVALEARN_OPTIONS…
    local k=$1
    shift
    srun --ntasks=1 --nodes=1 --cpus-per-task="$cpus" --exact --kill-on-bad-exit=0 \
        --job-name="${SLURM_JOB_NAME:-evalearn}-worker-$k" \
        --output="$work/logs/worker-$k.job-$job.log" --open-mode=append \
        "$evalearn" selfplay --config "$config" --worker "$pool" --threads "$cpus" \
        --worker-id "worker $k of job $job" "$@" &
    pid[$k]=$!
}

learner=''
stop_all() {
    local k
    # CONT too: a stopped process (kill -STOP, a debugger) hears TERM only when it runs.
    [[ -z $learner ]] || kill -TERM "$learner" 2>/dev/null || true
    [[ -z $learner ]] || kill -CONT "$learner" 2>/dev/null || true
    for k in "${!pid[@]}"; do
        kill "${pid[$k]}" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap 'say "stopped by a signal"; stop_all; exit 1' INT TERM

say "learner here, $workers worker(s) of $cpus CPU(s), $shards shards an iteration, pool $pool"
for ((k = 1; k <= workers; k++)); do
    start_worker "$k" "$@"
done

learner_restarts=$restarts
while true; do
    "$evalearn" train --config "$config" --workers "$pool" --shards "$shards" \
        --threads "$cpus" "$@" &
    learner=$!
    # Watch the workers while the learner runs: one that ends is started again.
    while kill -0 "$learner" 2>/dev/null; do
        alive=0
        for k in "${!pid[@]}"; do
            if kill -0 "${pid[$k]}" 2>/dev/null; then
                alive=$((alive + 1))
                continue
            fi
            status=0
            wait "${pid[$k]}" || status=$?
            [[ -f $pool/done ]] && continue
            if ((restarts_left > 0)); then
                restarts_left=$((restarts_left - 1))
                say "worker $k ended (status $status) before the run: starting it again" \
                    "($restarts_left restart(s) left)"
                start_worker "$k" "$@"
                alive=$((alive + 1))
            else
                say "worker $k ended (status $status) before the run; no restart left"
                unset "pid[$k]"
            fi
        done
        if ((alive == 0)); then
            say "error: every worker has ended and none can be started again: the run" \
                "cannot go on (see $work/logs/worker-*.job-$job.log)"
            stop_all
            exit 1
        fi
        sleep 1
    done
    status=0
    wait "$learner" || status=$?
    learner=''
    if ((status == 0)); then
        break
    fi
    if ((status == 2 || learner_restarts == 0)); then
        say "error: the learner ended with status $status; the run stops here (its" \
            "checkpoint is kept: submit.sh again goes on from it)"
        stop_all
        exit 1
    fi
    learner_restarts=$((learner_restarts - 1))
    say "the learner ended with status $status: starting it again from its checkpoint" \
        "($learner_restarts restart(s) left)"
done

# The learner wrote `done`: the workers leave by themselves.
for k in "${!pid[@]}"; do
    wait "${pid[$k]}" || true
done
say "the run is done"
