#!/bin/bash
# Profiles one phase of a running `camsync bench`: from the first progress line containing START to
# the next containing END, `perf record -a -g` of the whole machine and the scheduler's account
# (/proc/<pid>/task/<tid>/schedstat) of every `camsync coordinator` thread. Then prints each process's
# share of the samples, the idle share per second, and per coordinator thread the time it ran and the
# time it waited runnable for a core. docs/PERFORMANCE.md "Profiling".
#
#   camsync bench fleet-failover --fleet-sizes 10000 2> bench.log &
#   tools/profile-phase.sh bench.log "restarted at once" "rejoined in" /tmp/rejoin
#
# Stops by itself: at END, or 120 s after START (perf's own bound), or when the bench log says done.
set -euo pipefail
log=$1 start=$2 end=$3 out=$4
mkdir -p "$out"

schedstat() {
  for pid in $(pgrep -f "camsync coordinator" || true); do
    for task in /proc/"$pid"/task/*; do
      printf '%s %s %s %s\n' "$pid" "${task##*/}" "$(tr ' ' '_' < "$task"/comm)" "$(cat "$task"/schedstat)" 2>/dev/null || true
    done
  done
}

exec 3< <(tail -n0 -F "$log")
tail_pid=$!
trap 'kill "$tail_pid" 2>/dev/null || true' EXIT
perf_pid=""
while IFS= read -r -u 3 line; do
  if [[ -z $perf_pid && $line == *"$start"* ]]; then
    schedstat > "$out/schedstat.start"
    perf record -a -g -F 299 -o "$out/perf.data" -- sleep 120 > "$out/perf.log" 2>&1 &
    perf_pid=$!
  elif [[ -n $perf_pid && $line == *"$end"* ]]; then
    schedstat > "$out/schedstat.end"
    kill -INT "$perf_pid" 2>/dev/null || true
    wait "$perf_pid" || true
    break
  elif [[ $line == *" done in "* ]]; then
    echo "the bench finished before '$end'" >&2
    [[ -n $perf_pid ]] && kill -INT "$perf_pid" 2>/dev/null
    exit 1
  fi
done

echo "== share of the samples by process (pid: threads)"
perf script -i "$out/perf.data" -F comm,pid,tid 2>/dev/null | awk '
  { split($NF, id, "/"); comm = $1; for (i = 2; i < NF; i++) comm = comm "_" $i
    n[id[1]]++; threads[id[1] "|" comm]++; total++ }
  END { for (p in n) { line = sprintf("%6.2f%%  %s:", 100 * n[p] / total, p == 0 ? "idle" : p)
          for (k in threads) { split(k, part, "|"); if (part[1] == p) line = line sprintf(" %s %.1f%%", part[2], 100 * threads[k] / total) }
          print line } }' | sort -rn | head -20

echo "== idle share per second of the phase"
perf script -i "$out/perf.data" -F pid,time 2>/dev/null | awk '
  { t = $2; sub(":", "", t); s = int(t); if (!first) first = s; b = s - first; all[b]++; if ($1 == 0) idle[b]++ }
  END { for (b in all) printf "%3d s %5.1f%%\n", b, 100 * idle[b] / all[b] }' | sort -n | tr '\n' ' '
echo

echo "== coordinator threads: ran, waited runnable for a core (schedstat), over the phase"
join <(awk '{print $1 "/" $2, $3, $4, $5, $6}' "$out/schedstat.start" | sort) \
     <(awk '{print $1 "/" $2, $4, $5, $6}' "$out/schedstat.end" | sort) |
  awk '{ ran = ($6 - $3) / 1e9; waited = ($7 - $4) / 1e9
         if (ran > 0.1) printf "%-14s %-18s ran %6.2f s  waited %6.2f s  over %d slices\n", $1, $2, ran, waited, $8 - $5 }'
