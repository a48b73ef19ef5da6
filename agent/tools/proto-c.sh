#!/usr/bin/env bash
# Generates the protobuf-c code for the display agent from proto/ into $1 (default agent/generated).
# protoc-c 1.4 (Debian 12) does not support proto3 `optional`; such a field is, on the wire and in
# its presence semantics, a field in a one-field oneof (protoc's "synthetic oneof" `_name`). So the
# schema is rewritten that way into a scratch copy first: `optional T name = N;` becomes
# `oneof _name { T name = N; }`. The bytes on the wire are identical; C code tests `name_case`.
set -euo pipefail
out=${1:-agent/generated}
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$root/proto" && find . -path ./etcd -prune -o -name '*.proto' -print) | while read -r f; do
  mkdir -p "$scratch/$(dirname "$f")"
  sed -E 's/^([[:space:]]*)optional[[:space:]]+([A-Za-z0-9_.]+)[[:space:]]+([a-z0-9_]+)[[:space:]]*=[[:space:]]*([0-9]+);/\1oneof _\3 { \2 \3 = \4; }/' \
    "$root/proto/$f" > "$scratch/$f"
done
if grep -rn '^[[:space:]]*optional ' "$scratch" >&2; then echo "proto-c: an optional field was not rewritten" >&2; exit 1; fi
mkdir -p "$out"
rm -rf "$out/camsync"
(cd "$scratch" && protoc-c -I . --c_out="$(cd "$root" && mkdir -p "$out" && cd "$out" && pwd)" $(find . -name '*.proto' | sed 's|^\./||' | sort))
