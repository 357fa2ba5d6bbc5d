#!/usr/bin/env bash
# Full runs on a busy machine: BUSY_RUNS full embedded runs one after another
# beside a CPU hog that keeps every core busy (Debian's stress-ng, installed
# if missing), then a line per run and a summary: exit code, wall time,
# cases passed and failed, the harness's worst wake-up lateness in the run,
# and each failed case with whether the harness said it was starved.
#
#   hack/busy-runs.sh [--quiet] [RUNS] [-- run flags...]
#   make busy-runs BUSY_RUNS=10 RUN_FLAGS="--parallel 1"
#   make quiet-runs QUIET_RUNS=30       (--quiet: no hog, the same summary)
#
# Output: $ARTIFACTS/busy/run-N/ (or $ARTIFACTS/quiet/) and summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
hog_on=1
if [[ ${1:-} == --quiet ]]; then
  hog_on=0
  shift
fi
runs=${1:-10}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "busy-runs: RUNS must be a positive number, got '$runs'" >&2; exit 2; }
shift || true
[[ ${1:-} == -- ]] && shift
bin=${BIN:-_output/run-conformance}
out=${ARTIFACTS:-_artifacts}/busy
((hog_on)) || out=${ARTIFACTS:-_artifacts}/quiet
[[ -x $bin ]] || { echo "busy-runs: no harness binary at $bin: run 'make build' first" >&2; exit 2; }
if ((hog_on)) && ! command -v stress-ng >/dev/null; then
  echo "busy-runs: installing stress-ng (apt-get)" >&2
  { apt-get update -qq && apt-get install -y -qq stress-ng; } >/dev/null ||
    { echo "busy-runs: cannot install stress-ng: run 'apt-get install stress-ng' as root" >&2; exit 2; }
fi
rm -rf "$out" && mkdir -p "$out"
go build -o "$out/summarize" ./hack/busy-runs   # before the hog starts

cpus=$(nproc)
beside="on a quiet machine"
if ((hog_on)); then
  stress-ng --cpu "$cpus" --cpu-method matrixprod --quiet &
  hog=$!
  trap 'kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null || true' EXIT
  beside="beside stress-ng --cpu $cpus"
  echo "busy-runs: stress-ng --cpu $cpus (pid $hog) keeps every core busy; $runs full run(s): $bin run $*" | tee "$out/summary.txt"
else
  echo "busy-runs: no hog; $runs full run(s) one after another: $bin run $*" | tee "$out/summary.txt"
fi

failed_total=0
for i in $(seq 1 "$runs"); do
  dir=$out/run-$i
  start=$(date +%s.%N)
  code=0
  "$bin" run --report-dir "$dir" "$@" >"$out/run-$i.log" 2>&1 || code=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  line=$("$out/summarize" "$dir/results.json" 2>&1) || line="no results: $(tail -n 1 "$out/run-$i.log")"
  printf 'run %d: exit %d, %.0fs, %s\n' "$i" "$code" "$wall" "$line" | tee -a "$out/summary.txt"
  n=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line" | head -n1)
  failed_total=$((failed_total + ${n:-0}))
done
echo "busy-runs: $failed_total failed case(s) in $runs run(s) $beside" | tee -a "$out/summary.txt"
[[ $failed_total -eq 0 ]]
