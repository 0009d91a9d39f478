#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for the tests of the scripts beside
# this one (tests/integration/slurm.rs) and for trying them by hand:
#   deploy/slurm/test-cluster.sh COMMAND [ARGS…]
# Installs Debian's slurmctld, slurmd, slurm-client and munge with apt-get when they are
# missing, writes a slurm.conf for this machine (its CPUs and memory from `slurmd -C`)
# and a munge key into a fresh temporary folder, starts munged, slurmctld and slurmd on
# loopback (free ports, so it cannot meet another cluster here), waits until `sinfo`
# shows the node idle, runs COMMAND with SLURM_CONF pointing at the cluster, then cancels
# what is left in the queue and stops exactly the daemons it started (by pid), also when
# COMMAND or the start fails or the script is interrupted. Exits with COMMAND's status.
# Needs root: slurmd starts the jobs as their owner. No systemd needed.
#   deploy/slurm/test-cluster.sh bash     # a shell with the cluster: sinfo, sbatch, …
set -euo pipefail

if (($# == 0)); then
    echo "usage: test-cluster.sh COMMAND [ARGS…]" >&2
    exit 2
fi
me=test-cluster.sh
say() { echo "$me: $*" >&2; }
# Root's daemons live in sbin, which a test's PATH may lack.
export PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin

packages=(slurmctld slurmd slurm-client munge)
missing() {
    local command
    for command in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged; do
        command -v "$command" >/dev/null || return 0
    done
    return 1
}
if missing; then
    if ((EUID != 0)); then
        say "the Slurm daemons (Debian's ${packages[*]}) are missing and only root can" \
            "install them: run deploy/slurm/test-cluster.sh true as root once"
        exit 1
    fi
    say "installing ${packages[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    # Without systemd the packages' services are not started; this script starts them.
    # Another apt-get at work on this machine: wait for its lock.
    install=(apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends
        "${packages[@]}")
    "${install[@]}" >&2 || { apt-get update -q >&2 && "${install[@]}" >&2; }
    if missing; then
        say "apt-get installed ${packages[*]} but a command is still missing"
        exit 1
    fi
fi
if ((EUID != 0)); then
    say "must run as root: slurmd starts every job as its owner"
    exit 1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/evalearn-slurm.XXXXXX")
pids=()
names=()
stop() {
    local status=$? i pid
    trap - EXIT INT TERM HUP
    if [[ -f $dir/slurm.conf ]] && ((${#pids[@]} >= 2)); then
        # Jobs still queued or running: cancel them while the daemons can.
        scancel --quiet --user=root 2>/dev/null || true
        for _ in $(seq 1 60); do
            [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
            sleep 0.5
        done
    fi
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        pid=${pids[i]}
        kill -TERM "$pid" 2>/dev/null || continue
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            say "${names[i]} (pid $pid) did not stop: killing it"
            kill -KILL "$pid" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
    done
    if ((status != 0)) && [[ -d $dir/log ]]; then
        say "exit status $status; the daemons' last log lines:"
        tail -n 15 "$dir"/log/*.log >&2 2>/dev/null || true
    fi
    rm -rf "$dir"
    exit "$status"
}
trap stop EXIT
trap 'exit 130' INT TERM HUP

# Starts a daemon in the foreground of a background job, so its pid is ours to stop.
start() {
    local name=$1
    shift
    "$@" >>"$dir/log/$name.out" 2>&1 &
    pids+=($!)
    names+=("$name")
}

# Waits up to $1 half-seconds for the command after it to succeed.
await() {
    local tries=$1
    shift
    for _ in $(seq 1 "$tries"); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    return 1
}

# Two free TCP ports on loopback, one apart.
free_port() {
    local used port
    used=$(ss -Htln 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
    for _ in $(seq 1 100); do
        port=$((20000 + RANDOM % 30000))
        if ! grep -qx -e "$port" -e "$((port + 1))" <<<"$used"; then
            echo "$port"
            return
        fi
    done
    say "no free port found"
    exit 1
}

mkdir -p "$dir"/{log,state,spool,munge,run}
chmod 700 "$dir/munge"
chmod 755 "$dir" "$dir/run"
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
socket=$dir/run/munge.socket
start munged munged --foreground --force --socket="$socket" \
    --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --seed-file="$dir/munge/munged.seed" --log-file="$dir/log/munged.log"
if ! await 40 munge --socket="$socket" --no-input; then
    say "munged did not start"
    exit 1
fi

# This machine as the node: NodeName=… CPUs=… RealMemory=… as slurmd sees it.
node=$(slurmd -C | grep '^NodeName=')
name=${node#NodeName=}
name=${name%% *}
port=$(free_port)
cat >"$dir/slurm.conf" <<EOF
# Written by deploy/slurm/test-cluster.sh for one test session.
ClusterName=evalearn-test
SlurmctldHost=$name(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=512
ReturnToService=2
# Finished jobs stay visible to scontrol for an hour (there is no accounting database).
MinJobAge=3600
KillWait=5
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$dir/slurm.conf
start slurmctld slurmctld -D -i -f "$SLURM_CONF"
start slurmd slurmd -D -f "$SLURM_CONF" -N "$name"
idle() { [[ $(sinfo -h -N -o %t) == idle ]]; }
if ! await 240 idle; then
    say "the node did not become idle: $(sinfo -h -N -o '%t %E' 2>&1 || true)"
    exit 1
fi
say "cluster up: node $name ($(sinfo -h -N -o '%c CPUs, %m MB')), SLURM_CONF=$SLURM_CONF"

"$@"
