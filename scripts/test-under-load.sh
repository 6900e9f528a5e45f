#!/usr/bin/env bash
# The test command on a busy machine: RUNS (default 5) runs of scripts/test.sh in a clean clone
# of HEAD, with two CPU hogs (stress-ng, else two `yes`) beside them the whole time. Prints a
# line a run (exit, wall time, the suite's time and its summary) and ends the hogs it started.
#   bash scripts/test-under-load.sh [RUNS]      FUZZ_SECONDS=N shortens the fuzzing of each run
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
clone=$(mktemp -d /tmp/feedcli-load.XXXXXX)
git clone -q . "$clone"
hogs=()
if command -v stress-ng >/dev/null; then
  stress-ng --cpu 2 --timeout 24h >/dev/null 2>&1 & hogs+=($!)
else
  yes >/dev/null & hogs+=($!)
  yes >/dev/null & hogs+=($!)
fi
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
for n in $(seq 1 "$runs"); do
  log="$clone/run-$n.log"
  start=$(date +%s)
  (cd "$clone" && bash scripts/test.sh) >"$log" 2>&1
  status=$?
  summary=$(grep -E "Test run with" "$log" | tail -1)
  suite=$(sed -nE 's/.*Test run with .* after ([0-9.]+) seconds.*/\1/p' "$log" | tail -1)
  echo "run $n: exit $status, wall $(( $(date +%s) - start )) s, suite ${suite:-?} s: ${summary:-no summary (see $log)}"
done
