#!/usr/bin/env bash
# selftest.sh — end-to-end check of lab.sh on this machine (needs root; bounded to 60 s).
#
# Usage:
#   selftest.sh                 run the self-test; the last line is "N passed, M failed"
#   SELFTEST_PROBE=tcp selftest.sh   force the TCP probe (default: auto = ping if installed, else TCP)
#
# Brings up a 2-host lab under a unique prefix, checks coord <-> h1 <-> h2 reachability, partitions
# h2 (coord and h1 lose it, coord <-> h1 stays), heals it (reachability returns), tears the lab down
# and checks that no namespace with the prefix remains and that the root namespace was not touched.
# A trap removes the lab and any listener it started, whatever happens. Only lab addresses
# (LAB_SUBNET, inside the lab namespaces) are ever probed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LAB="${HERE}/lab.sh"
readonly TOTAL_BUDGET=60   # seconds, the whole run including cleanup
readonly CLEANUP_RESERVE=8 # seconds kept back for the outer cleanup
readonly TCP_PORT=18931    # listener port inside the lab (TCP probe only)

# ----------------------------------------------------------------------------------------------
# Inner part: the checks themselves. Runs under `timeout`, writes one PASS/FAIL line per check.
# ----------------------------------------------------------------------------------------------
inner() {
  local P="$SELFTEST_PREFIX" STATE="$SELFTEST_STATE" MODE="$SELFTEST_MODE"
  local RESULTS="${STATE}/results"

  record() { # record PASS|FAIL description
    echo "$1 $2" >>"$RESULTS"
    echo "  [$1] $2"
  }
  check() { # check "description" cmd...
    local desc="$1"
    shift
    if "$@" >/dev/null 2>&1; then record PASS "$desc"; else record FAIL "$desc"; fi
  }
  addr() { "$LAB" addr "$1" "$P"; }

  root_snapshot() { # what the root namespace looks like: interfaces, IPv4 addresses and routes
    ip -br link | awk '{print $1}'
    ip -br -4 addr
    ip -4 route show table all
  }

  probe_once() { # probe_once SRC DST -> 0 if DST's lab address answers from SRC's namespace
    local src="$1" dst_addr
    dst_addr="$(addr "$2")"
    # shellcheck disable=SC2016 # $1/$2 are expanded by the inner bash, on purpose
    case "$MODE" in
      ping) ip netns exec "${P}-${src}" timeout 3 ping -n -q -c1 -W1 "$dst_addr" ;;
      tcp) ip netns exec "${P}-${src}" timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$dst_addr" "$TCP_PORT" ;;
    esac
  }
  reaches() { # up to 3 tries: links that just came up may need a moment (ARP)
    local i
    for i in 1 2 3; do
      probe_once "$1" "$2" >/dev/null 2>&1 && return 0
      ((i < 3)) && sleep 0.3
    done
    return 1
  }
  cannot_reach() { # every one of 2 tries must fail
    local i
    for i in 1 2; do
      if probe_once "$1" "$2" >/dev/null 2>&1; then return 1; fi
    done
    return 0
  }
  has_addr() { # has_addr NAME: the lab interface in PREFIX-NAME carries NAME's address
    ip -n "${P}-$1" -4 -o addr show dev eth0 | grep -qF " $(addr "$1")/24 "
  }
  lo_up() { ip -n "${P}-$1" -o link show lo | grep -q 'UP' && ip -n "${P}-$1" -4 -o addr show dev lo | grep -qF '127.0.0.1/8'; }
  no_default_route() { [[ -z "$(ip -n "${P}-$1" route show default)" ]]; }
  exec_works() { [[ "$("$LAB" exec h1 "$P" -- ip -4 -o addr show dev eth0)" == *" $(addr h1)/24 "* ]]; }
  ns_count() { "$LAB" list "$P" | wc -l; }
  lab_has_ns() { [[ "$(ns_count)" -eq "$1" ]]; }
  lab_gone() { [[ -z "$("$LAB" list "$P")" ]] && ! ip netns list | grep -q "^${P}-"; }
  start_listener() { # TCP mode: a tiny listener on NAME's lab address, pid recorded for cleanup
    local name="$1" a
    a="$(addr "$name")"
    ip netns exec "${P}-${name}" python3 -m http.server "$TCP_PORT" --bind "$a" \
      >"${STATE}/listener-${name}.log" 2>&1 &
    echo "$!" >>"${STATE}/pids"
  }
  listener_ready() { # wait (≤ 5 s) until NAME's listener accepts, probing from NAME itself
    local name="$1" a i
    a="$(addr "$name")"
    for ((i = 0; i < 50; i++)); do
      # shellcheck disable=SC2016 # $1/$2 are expanded by the inner bash, on purpose
      ip netns exec "${P}-${name}" timeout 1 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$a" "$TCP_PORT" \
        2>/dev/null && return 0
      sleep 0.1
    done
    return 1
  }
  root_unchanged() { [[ "$(root_snapshot)" == "$(cat "${STATE}/root-before")" ]]; }

  echo "selftest: prefix ${P}, probe ${MODE}, subnet ${LAB_SUBNET:-10.231.0}.0/24"
  root_snapshot >"${STATE}/root-before"

  check "lab.sh check says this machine can run the lab" "$LAB" check
  check "lab.sh up 2 ${P}" "$LAB" up 2 "$P"
  check "lab.sh up 2 ${P} again (existing lab is replaced cleanly)" "$LAB" up 2 "$P"
  check "lab has exactly 4 namespaces (coord, sw, h1, h2)" lab_has_ns 4
  check "addr coord = ${LAB_SUBNET:-10.231.0}.1" test "$(addr coord)" = "${LAB_SUBNET:-10.231.0}.1"
  check "addr h2 = ${LAB_SUBNET:-10.231.0}.12" test "$(addr h2)" = "${LAB_SUBNET:-10.231.0}.12"
  local n
  for n in coord h1 h2; do
    check "${n} has its lab address on eth0" has_addr "$n"
    check "${n} has no default route (lab traffic stays in the lab)" no_default_route "$n"
  done
  for n in coord sw h1 h2; do
    check "lo is up in ${P}-${n}" lo_up "$n"
  done
  check "lab.sh exec h1 runs inside h1's namespace" exec_works
  check "root namespace unchanged after up" root_unchanged

  if [[ "$MODE" == tcp ]]; then
    for n in coord h1 h2; do start_listener "$n"; done
    for n in coord h1 h2; do check "TCP listener on ${n} is ready" listener_ready "$n"; done
  fi

  local pair
  for pair in "coord h1" "coord h2" "h1 coord" "h1 h2" "h2 coord" "h2 h1"; do
    read -r a b <<<"$pair"
    check "${a} reaches ${b}" reaches "$a" "$b"
  done

  check "lab.sh partition h2" "$LAB" partition h2 "$P"
  check "partitioned: coord cannot reach h2" cannot_reach coord h2
  check "partitioned: h1 cannot reach h2" cannot_reach h1 h2
  check "partitioned: coord still reaches h1" reaches coord h1
  check "partitioned: h1 still reaches coord" reaches h1 coord

  check "lab.sh heal h2" "$LAB" heal h2 "$P"
  check "healed: coord reaches h2" reaches coord h2
  check "healed: h2 reaches coord" reaches h2 coord
  check "healed: h1 reaches h2" reaches h1 h2

  # Cuts of one link (nftables; the HA soak's nemesis), where nftables works in a namespace.
  if "$LAB" cut-check 2>/dev/null; then
    check "lab.sh cut h1 h2" "$LAB" cut h1 h2 "$P"
    check "cut: h1 cannot reach h2" cannot_reach h1 h2
    check "cut: h2 cannot reach h1" cannot_reach h2 h1
    check "cut: h1 still reaches coord" reaches h1 coord
    check "cut: coord still reaches h2" reaches coord h2
    check "lab.sh mend h1" "$LAB" mend h1 "$P"
    check "mended: h1 reaches h2" reaches h1 h2
    check "lab.sh cut h1 h2 one-way" "$LAB" cut h1 h2 "$P" one-way
    check "one-way cut: h1 cannot reach h2" cannot_reach h1 h2
    check "lab.sh mend h1 (one-way)" "$LAB" mend h1 "$P"
    check "mended: h2 reaches h1" reaches h2 h1
  fi

  check "lab.sh down ${P}" "$LAB" down "$P"
  check "no namespace with prefix ${P} remains" lab_gone
  check "lab.sh down ${P} on a lab that is gone still succeeds" "$LAB" down "$P"
  check "root namespace unchanged after down" root_unchanged
}

# ----------------------------------------------------------------------------------------------
# Outer part: picks the probe, runs the inner part under timeout, always cleans up, prints totals.
# ----------------------------------------------------------------------------------------------
STATE=""
PREFIX=""
INNER_PID=""

cleanup() {
  local pid
  if [[ -n "$INNER_PID" ]]; then
    kill -TERM "$INNER_PID" 2>/dev/null || true
    wait "$INNER_PID" 2>/dev/null || true
    INNER_PID=""
  fi
  if [[ -n "$STATE" && -f "${STATE}/pids" ]]; then
    while read -r pid; do
      if [[ -n "$pid" ]]; then kill -TERM "$pid" 2>/dev/null || true; fi
    done <"${STATE}/pids"
    rm -f "${STATE}/pids"
  fi
  if [[ -n "$PREFIX" ]]; then
    timeout 5 "$LAB" down "$PREFIX" >/dev/null 2>&1 || true
  fi
}

finish() {
  local rc=$?
  trap - EXIT INT TERM
  cleanup
  if [[ -n "$STATE" ]]; then
    local passed failed
    if [[ -n "$PREFIX" ]]; then
      if [[ -z "$(ip netns list 2>/dev/null | awk -v p="${PREFIX}-" 'index($1, p) == 1')" ]]; then
        echo "PASS nothing with prefix ${PREFIX} left after cleanup" >>"${STATE}/results"
      else
        echo "FAIL nothing with prefix ${PREFIX} left after cleanup" >>"${STATE}/results"
        echo "  [FAIL] namespaces left behind: $(ip netns list | grep "^${PREFIX}-" | tr '\n' ' ')"
      fi
    fi
    passed="$(grep -c '^PASS ' "${STATE}/results" || true)"
    failed="$(grep -c '^FAIL ' "${STATE}/results" || true)"
    rm -rf "$STATE"
    echo "${passed} passed, ${failed} failed"
    ((failed == 0)) && exit 0
    exit 1
  fi
  exit "$rc"
}

main() {
  local start=$SECONDS budget rc=0
  STATE="$(mktemp -d /tmp/camsync-netns-selftest.XXXXXX)"
  : >"${STATE}/results"
  trap finish EXIT
  trap 'echo "selftest: interrupted" >&2; echo "FAIL interrupted" >>"${STATE}/results"; exit 1' INT TERM

  if [[ "$(id -u)" != 0 ]]; then
    echo "selftest: needs root (network namespaces)." >&2
    echo "FAIL running as root" >>"${STATE}/results"
    exit 1
  fi
  # Allowed install, and only if missing: iproute2 (ip) and iputils-ping (ping), bounded.
  if ! command -v ip >/dev/null 2>&1 \
    || { [[ "${SELFTEST_PROBE:-auto}" != tcp ]] && ! command -v ping >/dev/null 2>&1 && ! command -v python3 >/dev/null 2>&1; }; then
    echo "selftest: installing iproute2 iputils-ping" >&2
    { timeout 20 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 20 apt-get install -y -qq iproute2 iputils-ping; } >/dev/null 2>&1 || true
  fi

  local mode="${SELFTEST_PROBE:-auto}"
  if [[ "$mode" == auto ]]; then
    if command -v ping >/dev/null 2>&1; then mode=ping
    elif command -v python3 >/dev/null 2>&1; then mode=tcp
    else
      echo "selftest: neither ping nor python3 is available to probe reachability." >&2
      echo "FAIL a reachability probe (ping or python3) is available" >>"${STATE}/results"
      exit 1
    fi
  fi
  case "$mode" in
    ping | tcp) ;;
    *) echo "selftest: SELFTEST_PROBE must be auto, ping or tcp" >&2; exit 2 ;;
  esac

  PREFIX="cst-$$-${RANDOM}"
  budget=$((TOTAL_BUDGET - CLEANUP_RESERVE - (SECONDS - start)))
  ((budget > 5)) || budget=5

  SELFTEST_INNER=1 SELFTEST_PREFIX="$PREFIX" SELFTEST_STATE="$STATE" SELFTEST_MODE="$mode" \
    timeout -k 3 "$budget" bash "${BASH_SOURCE[0]}" &
  INNER_PID=$!
  wait "$INNER_PID" || rc=$?
  INNER_PID=""
  if ((rc == 124 || rc == 137)); then
    echo "  [FAIL] self-test did not finish within ${budget} s"
    echo "FAIL finished within the time budget" >>"${STATE}/results"
  elif ((rc != 0)); then
    echo "  [FAIL] self-test body exited with status ${rc}"
    echo "FAIL self-test body ran to the end" >>"${STATE}/results"
  fi
  exit 0 # finish (EXIT trap) cleans up and prints the totals
}

if [[ "${SELFTEST_INNER:-}" == 1 ]]; then
  inner
else
  main "$@"
fi
