#!/usr/bin/env bash
# Runs the test command of the README (tests/setup.sh && cargo test --release) RUNS times
# (default 3) while two busy loops keep two cores saturated, and reports each run's wall
# time and exit status. The suite must pass under such load: no test may depend on how
# fast or busy the machine is. The loops are stopped by their pids when the script
# ends, fails or is interrupted.
#
#   tests/under-load.sh [RUNS]
#
# Exits 0 when every run passed, 1 otherwise (2 for a bad argument). Each run's output
# is kept in target/under-load/run-N.log.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "under-load.sh: RUNS must be a whole number of at least 1, not '$runs'" >&2
    exit 2
fi

loops=()
stop_loops() {
    for pid in "${loops[@]}"; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    loops=()
}
trap stop_loops EXIT
trap 'stop_loops; exit 130' INT
trap 'stop_loops; exit 143' TERM

for _ in 1 2; do
    sh -c 'while :; do :; done' &
    loops+=("$!")
done
echo "busy loops: pids ${loops[*]}"

logs=target/under-load
mkdir -p "$logs"
failed=0
summary=()
for run in $(seq 1 "$runs"); do
    log="$logs/run-$run.log"
    echo "run $run/$runs: tests/setup.sh && cargo test --release (log: $log)"
    started=$(date +%s)
    (tests/setup.sh && cargo test --release) >"$log" 2>&1
    status=$?
    seconds=$(($(date +%s) - started))
    if [ "$status" -eq 0 ]; then
        result="passed"
    else
        result="FAILED (exit $status)"
        failed=1
        grep -E "^test .* FAILED$|panicked at|^failures:" "$log" | head -20
    fi
    line=$(printf 'run %d: %s in %dm%02ds (load average %s)' "$run" "$result" \
        $((seconds / 60)) $((seconds % 60)) "$(cut -d' ' -f1-3 /proc/loadavg)")
    echo "$line"
    summary+=("$line")
done
stop_loops
echo "under load, $(date -u +%Y-%m-%d), $(nproc) cores:"
printf '  %s\n' "${summary[@]}"
exit "$failed"
