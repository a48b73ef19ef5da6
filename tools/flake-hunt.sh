#!/usr/bin/env bash
# The flake hunt: runs the suites that depend on processes, etcd and time (the integration suites,
# the etcd client's live tests, the benchmarks that start clusters) ROUNDS times on one build, the
# last HOG_ROUNDS of them beside HOG CPU-bound busy loops, and prints each round's time, load average
# and failures. The log of a failed round (with the soak's seed and run directory, and every failed
# expectation) is kept under OUT; a passing round's log is removed unless KEEP=1.
#
#   make flake-hunt ROUNDS=10 HOG_ROUNDS=3
#   tools/flake-hunt.sh                     # the same, with the defaults below
#   FILTER='SoakTests' ROUNDS=20 tools/flake-hunt.sh
#
# Exit status: 0 when every round passed.
set -uo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-10}
HOG_ROUNDS=${HOG_ROUNDS:-3}
HOG=${HOG:-2}
KEEP=${KEEP:-0}
FILTER=${FILTER:-'IntegrationTests|CamsyncEtcdTests|HABenchmarkTests|CrashCleanupTests|ScenarioRunTests'}
OUT=${OUT:-.build/flake-hunt/$(date -u +%Y%m%dT%H%M%SZ)}
SWIFT=${SWIFT:-swift}
mkdir -p "$OUT"

hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null; done
  hogs=()
}
sampler=""
stop_sampler() { [ -n "$sampler" ] && kill "$sampler" 2>/dev/null && wait "$sampler" 2>/dev/null; sampler=""; }
trap 'stop_hogs; stop_sampler' EXIT INT TERM

echo "flake-hunt: $ROUNDS rounds of --filter '$FILTER', the last $HOG_ROUNDS beside $HOG busy loops; logs in $OUT"
if ! $SWIFT build --build-tests >"$OUT/build.log" 2>&1; then
  tail -30 "$OUT/build.log"; echo "flake-hunt: the build failed (log: $OUT/build.log)"; exit 1
fi

failed_rounds=0
summary="$OUT/summary.txt"
printf '%-6s %-5s %8s %10s %10s %s\n' round hog seconds load-max load-end result | tee "$summary"
for round in $(seq 1 "$ROUNDS"); do
  hog=0
  if [ "$round" -gt $((ROUNDS - HOG_ROUNDS)) ]; then
    hog=$HOG
    for _ in $(seq 1 "$HOG"); do ( while :; do :; done ) & hogs+=($!); done
  fi
  log="$OUT/round-$round.log"
  maxfile="$OUT/.load-$round"
  echo 0 > "$maxfile"
  ( while :; do
      read -r one _ < /proc/loadavg
      awk -v a="$one" -v f="$maxfile" 'BEGIN { getline m < f; if (a > m) { print a > f } }'
      sleep 5
    done ) & sampler=$!
  start=$(date +%s)
  $SWIFT test --skip-build --filter "$FILTER" >"$log" 2>&1
  status=$?
  seconds=$(( $(date +%s) - start ))
  stop_sampler
  stop_hogs
  read -r load_end _ < /proc/loadavg
  load_max=$(cat "$maxfile"); rm -f "$maxfile"
  if [ $status -eq 0 ]; then
    result="passed ($(grep -oE 'Test run with [0-9]+ tests' "$log" | grep -oE '[0-9]+' | head -1) tests)"
    [ "$KEEP" = 1 ] || rm -f "$log"
  else
    failed_rounds=$((failed_rounds + 1))
    result="FAILED: $(grep -E '^✘ Test "' "$log" | sed -E 's/^✘ Test "([^"]*)".*/\1/' | sort -u | paste -sd ';' -) (log: $log)"
  fi
  printf '%-6s %-5s %8s %10s %10s %s\n' "$round" "$hog" "$seconds" "$load_max" "$load_end" "$result" | tee -a "$summary"
  if [ $status -ne 0 ]; then
    # Each failed expectation with its message (the soak's summary names its seed and run directory).
    grep -E '✘|Expectation failed|recorded an issue|seed' "$log" | head -40 | sed 's/^/    /'
  fi
done
echo "flake-hunt: $((ROUNDS - failed_rounds)) of $ROUNDS rounds passed (summary: $summary)"
[ "$failed_rounds" -eq 0 ]
