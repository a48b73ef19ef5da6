#!/usr/bin/env bash
# Copies etcd's v3 API protos from Debian's golang-etcd-server-dev into OUT (default proto/etcd),
# stripping what only Go needs: gogoproto imports/options and the grpc-gateway
# `option (google.api.http) = {...};` blocks. Messages, fields and services are left as they are.
# Usage: tools/etcd-proto.sh [OUT]   (ETCD_SRC overrides the package's source dir)
set -euo pipefail
SRC=${ETCD_SRC:-/usr/share/gocode/src/go.etcd.io/etcd}
OUT=${1:-proto/etcd}
FILES=(
  mvcc/mvccpb/kv.proto
  auth/authpb/auth.proto
  etcdserver/etcdserverpb/rpc.proto
  etcdserver/api/v3election/v3electionpb/v3election.proto
)
if [ ! -f "$SRC/etcdserver/etcdserverpb/rpc.proto" ]; then
  echo "etcd-proto: $SRC has no etcd protos; install golang-etcd-server-dev" >&2
  exit 1
fi
version=$(dpkg-query -W -f='${Version}' golang-etcd-server-dev 2>/dev/null || echo unknown)
for file in "${FILES[@]}"; do
  mkdir -p "$OUT/$(dirname "$file")"
  awk -v note="// etcd $file from Debian golang-etcd-server-dev $version, copied by tools/etcd-proto.sh
// (gogoproto and google.api options stripped): do not edit." '
      /^import "gogoproto\/gogo.proto";/ { next }
      /^import "google\/api\/annotations.proto";/ { next }
      /^\/\/ for grpc-gateway$/ { next }
      /^option \(gogoproto\.[a-z_]+\) = [a-z]+;$/ { next }
      /option \(google\.api\.http\) = \{/ { skipping = 1 }
      skipping { if ($0 ~ /^ *};/) skipping = 0; next }
      { print }
      /^package [a-z0-9_.]+;$/ { print ""; print note }
    ' "$SRC/$file" > "$OUT/$file"
done
