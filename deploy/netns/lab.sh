#!/usr/bin/env bash
# lab.sh — multi-host camsync lab on ONE machine, built from Linux network namespaces.
#
# Usage:
#   lab.sh up N [PREFIX]                 create PREFIX-coord, PREFIX-h1..hN, PREFIX-sw (bridge)
#   lab.sh down [PREFIX]                 delete the lab's namespaces (never fails if already gone)
#   lab.sh addr NAME [PREFIX]            print the IPv4 address of NAME (coord | hI)
#   lab.sh exec NAME [PREFIX] -- CMD...  run CMD inside namespace PREFIX-NAME
#   lab.sh partition NAME [PREFIX]       cut NAME's link (its bridge-side veth goes down)
#   lab.sh heal NAME [PREFIX]            restore NAME's link
#   lab.sh cut NAME PEER [PREFIX] [one-way]
#                                        drop what NAME and PEER send each other (nftables in
#                                        NAME's namespace); one-way: only what NAME sends PEER
#   lab.sh mend NAME [PREFIX]            remove every cut made in NAME's namespace
#   lab.sh cut-check                     exit 0 if nftables works in a namespace here, else 1 + one sentence
#   lab.sh list [PREFIX]                 list the lab's namespaces
#   lab.sh check                         exit 0 if this machine can run the lab, else 1 + one sentence
#
# PREFIX defaults to "csl". Environment:
#   LAB_SUBNET   first three octets of the lab /24 (default 10.231.0); coord = .1, host i = .(10+i)
#
# Nothing is ever configured in the root network namespace: the bridge lives in PREFIX-sw, and
# every veth pair is created inside PREFIX-sw with its peer placed straight into the host namespace.
# The lab namespaces have no default route, so lab traffic cannot leave the lab.
set -euo pipefail

readonly DEFAULT_PREFIX="csl"
readonly SUBNET="${LAB_SUBNET:-10.231.0}"
readonly MAX_HOSTS=240
readonly BRIDGE="br0"      # bridge name inside PREFIX-sw
readonly HOST_IF="eth0"    # lab interface name inside coord / hI namespaces

die() {
  echo "lab.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
  exit 2
}

check_prefix() {
  [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$ ]] \
    || die "invalid PREFIX '$1' (letters, digits, '_', '.' or '-', at most 32 characters)"
}

check_subnet() {
  local o x
  [[ "$SUBNET" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] \
    || die "LAB_SUBNET must be three octets such as 10.231.0 (got '$SUBNET')"
  IFS=. read -r -a o <<<"$SUBNET"
  for x in "${o[@]}"; do
    ((10#$x <= 255)) || die "LAB_SUBNET octet out of range in '$SUBNET'"
  done
}

# Validate a member NAME (coord | hI).
check_name() {
  local name="$1"
  if [[ "$name" == coord ]]; then
    return 0
  fi
  [[ "$name" =~ ^h([1-9][0-9]{0,2})$ ]] || die "unknown NAME '$name' (expected coord or hI, e.g. h1)"
  ((BASH_REMATCH[1] <= MAX_HOSTS)) || die "host index in '$name' exceeds $MAX_HOSTS"
}

addr_of() {
  local name="$1"
  check_name "$name"
  if [[ "$name" == coord ]]; then
    echo "${SUBNET}.1"
  else
    echo "${SUBNET}.$((10 + 10#${name#h}))"
  fi
}

# Namespaces that belong to lab PREFIX: PREFIX-coord, PREFIX-sw, PREFIX-h<digits>. Exact match only,
# so lab "csl" never touches "csl2-coord" or anything else that merely starts with "csl".
lab_namespaces() {
  local prefix="$1" ns rest
  while read -r ns _; do
    [[ -n "$ns" ]] || continue
    rest="${ns#"${prefix}"-}"
    [[ "$rest" != "$ns" ]] || continue
    if [[ "$rest" == coord || "$rest" == sw || "$rest" =~ ^h[0-9]+$ ]]; then
      echo "$ns"
    fi
  done < <(ip netns list 2>/dev/null || true)
}

ns_exists() {
  [[ -e "/run/netns/$1" ]]
}

require_ns() {
  ns_exists "$1" || die "namespace '$1' does not exist (is the lab up? try: lab.sh up N ${1%-*})"
}

cmd_down() {
  local prefix="${1:-$DEFAULT_PREFIX}" ns pid nss=() pids=()
  check_prefix "$prefix"
  mapfile -t nss < <(lab_namespaces "$prefix")
  ((${#nss[@]} > 0)) || return 0
  # Processes still running inside a lab namespace (coordinator, nodes, listeners) would keep the
  # namespace alive after its name is gone: stop them, by pid, TERM first and KILL if needed.
  for ns in "${nss[@]}"; do
    while read -r pid; do
      [[ -n "$pid" ]] && pids+=("$pid")
    done < <(ip netns pids "$ns" 2>/dev/null || true)
  done
  if ((${#pids[@]} > 0)); then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      local alive=()
      for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null && alive+=("$pid")
      done
      ((${#alive[@]} == 0)) && break
      sleep 0.2
    done
    for pid in "${pids[@]}"; do
      kill -KILL "$pid" 2>/dev/null || true
    done
  fi
  # Host namespaces first, the switch last: deleting a namespace destroys its veth ends.
  for ns in "${nss[@]}"; do
    [[ "$ns" == "${prefix}-sw" ]] && continue
    ip netns delete "$ns" 2>/dev/null || true
  done
  ip netns delete "${prefix}-sw" 2>/dev/null || true
  # Anything left (e.g. a delete that raced) is an error worth reporting.
  mapfile -t nss < <(lab_namespaces "$prefix")
  ((${#nss[@]} == 0)) || die "could not delete: ${nss[*]}"
}

# Attach member NAME (coord | hI) to the switch of lab PREFIX.
attach() {
  local prefix="$1" name="$2" ns="${1}-${2}" sw="${1}-sw" addr
  addr="$(addr_of "$name")"
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  # Create the pair inside the switch namespace; the peer is born directly in the member namespace.
  ip -n "$sw" link add name "v-${name}" type veth peer name "$HOST_IF" netns "$ns"
  ip -n "$sw" link set "v-${name}" master "$BRIDGE"
  ip -n "$sw" link set "v-${name}" up
  ip -n "$ns" addr add "${addr}/24" dev "$HOST_IF"
  ip -n "$ns" link set "$HOST_IF" up
}

UP_PREFIX=""
up_failed() {
  local rc=$?
  trap - EXIT
  echo "lab.sh: up failed; removing partial lab '${UP_PREFIX}'" >&2
  cmd_down "$UP_PREFIX" || true
  exit "$((rc == 0 ? 1 : rc))"
}

cmd_up() {
  local n="${1:-}" prefix="${2:-$DEFAULT_PREFIX}" i
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "up: N must be a positive integer (got '${n}')"
  ((n <= MAX_HOSTS)) || die "up: N must be at most $MAX_HOSTS"
  check_prefix "$prefix"
  check_subnet
  if [[ -n "$(lab_namespaces "$prefix")" ]]; then
    echo "lab.sh: lab '$prefix' already exists; tearing it down first" >&2
    cmd_down "$prefix"
  fi
  # A failure half-way leaves nothing behind (set -e exits, the EXIT trap cleans up).
  UP_PREFIX="$prefix"
  trap up_failed EXIT

  ip netns add "${prefix}-sw"
  ip -n "${prefix}-sw" link set lo up
  ip -n "${prefix}-sw" link add name "$BRIDGE" type bridge stp_state 0 forward_delay 0
  ip -n "${prefix}-sw" link set "$BRIDGE" up

  attach "$prefix" coord
  for ((i = 1; i <= n; i++)); do
    attach "$prefix" "h${i}"
  done
  trap - EXIT
  echo "lab '$prefix' up: coord=$(addr_of coord) hosts=h1..h${n} ($(addr_of h1)..$(addr_of "h${n}")) switch=${prefix}-sw"
}

cmd_addr() {
  local name="${1:-}" prefix="${2:-$DEFAULT_PREFIX}"
  [[ -n "$name" ]] || usage
  check_prefix "$prefix"
  check_subnet
  addr_of "$name"
}

cmd_exec() {
  local name="${1:-}" prefix="$DEFAULT_PREFIX"
  [[ -n "$name" ]] || usage
  shift
  if [[ $# -gt 0 && "$1" != "--" ]]; then
    prefix="$1"
    shift
  fi
  [[ $# -gt 0 && "$1" == "--" ]] || die "exec: expected '--' before the command (lab.sh exec NAME [PREFIX] -- CMD...)"
  shift
  [[ $# -gt 0 ]] || die "exec: no command given"
  check_prefix "$prefix"
  [[ "$name" == sw ]] || check_name "$name"
  require_ns "${prefix}-${name}"
  exec ip netns exec "${prefix}-${name}" "$@"
}

set_link() {
  local state="$1" name="${2:-}" prefix="${3:-$DEFAULT_PREFIX}"
  [[ -n "$name" ]] || usage
  check_prefix "$prefix"
  check_name "$name"
  require_ns "${prefix}-sw"
  require_ns "${prefix}-${name}"
  ip -n "${prefix}-sw" link set "v-${name}" "$state"
}

# The cuts of a member live in one nftables table of its own namespace (inet camsync_cuts): an
# output rule per peer it may not send to, an input rule per peer it may not hear.
readonly CUT_TABLE="camsync_cuts"

cmd_cut() {
  local name="${1:-}" peer="${2:-}" prefix="${3:-$DEFAULT_PREFIX}" way="${4:-both}" ns peer_addr
  [[ -n "$name" && -n "$peer" ]] || usage
  [[ "$way" == both || "$way" == one-way ]] || die "cut: the direction is 'one-way' or nothing (got '$way')"
  check_prefix "$prefix"
  check_subnet
  check_name "$name"
  peer_addr="$(addr_of "$peer")"
  ns="${prefix}-${name}"
  require_ns "$ns"
  command -v nft >/dev/null 2>&1 || die "cut: nftables is missing (apt-get install -y nftables)"
  ip netns exec "$ns" nft add table inet "$CUT_TABLE"
  ip netns exec "$ns" nft add chain inet "$CUT_TABLE" out '{ type filter hook output priority 0; policy accept; }'
  ip netns exec "$ns" nft add chain inet "$CUT_TABLE" in '{ type filter hook input priority 0; policy accept; }'
  ip netns exec "$ns" nft add rule inet "$CUT_TABLE" out ip daddr "$peer_addr" drop
  if [[ "$way" == both ]]; then
    ip netns exec "$ns" nft add rule inet "$CUT_TABLE" in ip saddr "$peer_addr" drop
  fi
}

cmd_mend() {
  local name="${1:-}" prefix="${2:-$DEFAULT_PREFIX}" ns
  [[ -n "$name" ]] || usage
  check_prefix "$prefix"
  check_name "$name"
  ns="${prefix}-${name}"
  require_ns "$ns"
  ip netns exec "$ns" nft delete table inet "$CUT_TABLE" 2>/dev/null || true
}

cmd_cut_check() {
  local probe="labcut-$$-${RANDOM}" ok=1
  cmd_check || return 1
  if ! command -v nft >/dev/null 2>&1; then
    echo "lab.sh cut-check: nftables is missing (apt-get install -y nftables)." >&2
    return 1
  fi
  ip netns add "$probe" 2>/dev/null || return 1
  ip netns exec "$probe" nft add table inet "$CUT_TABLE" 2>/dev/null || ok=0
  ip netns delete "$probe" 2>/dev/null || true
  if ((ok == 0)); then
    echo "lab.sh cut-check: nftables does not work inside a network namespace here." >&2
    return 1
  fi
  return 0
}

cmd_list() {
  local prefix="${1:-$DEFAULT_PREFIX}"
  check_prefix "$prefix"
  lab_namespaces "$prefix"
}

cmd_check() {
  local probe="labcheck-$$-${RANDOM}"
  if [[ "$(id -u)" != 0 ]]; then
    echo "lab.sh check: network namespaces need root, and this shell is not root." >&2
    return 1
  fi
  if ! command -v ip >/dev/null 2>&1; then
    echo "lab.sh check: the 'ip' command is missing (apt-get install -y iproute2)." >&2
    return 1
  fi
  if ! ip netns add "$probe" 2>/dev/null; then
    echo "lab.sh check: 'ip netns add' failed, so this machine cannot create network namespaces." >&2
    return 1
  fi
  local ok=1 why=""
  if ! ip -n "$probe" link add name vcheck0 type veth peer name vcheck1 2>/dev/null; then
    ok=0 why="a veth pair cannot be created inside a network namespace"
  elif ! ip -n "$probe" link add name brcheck type bridge 2>/dev/null; then
    ok=0 why="a Linux bridge cannot be created inside a network namespace"
  elif ! ip netns exec "$probe" true 2>/dev/null; then
    ok=0 why="'ip netns exec' cannot enter a network namespace"
  fi
  ip netns delete "$probe" 2>/dev/null || true
  if ((ok == 0)); then
    echo "lab.sh check: ${why}." >&2
    return 1
  fi
  return 0
}

main() {
  local cmd="${1:-}"
  [[ -n "$cmd" ]] || usage
  shift
  case "$cmd" in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    addr) cmd_addr "$@" ;;
    exec) cmd_exec "$@" ;;
    partition) set_link down "$@" ;;
    heal) set_link up "$@" ;;
    cut) cmd_cut "$@" ;;
    mend) cmd_mend "$@" ;;
    cut-check) cmd_cut_check ;;
    list) cmd_list "$@" ;;
    check) cmd_check ;;
    -h | --help | help) usage ;;
    *) die "unknown command '$cmd' (try: lab.sh help)" ;;
  esac
}

main "$@"
