# camsync — every target installs what it needs on a fresh Debian machine.
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libzmq3-dev zlib1g-dev protobuf-compiler pkg-config libsqlite3-dev iproute2 nftables python3-zmq python3-protobuf \
  libprotobuf-c-dev protobuf-c-compiler libyaml-dev chromium fonts-dejavu-core curl etcd-server prometheus
PROTO_OUT := Sources/CamsyncWire/Generated
PLUGIN_SCRATCH := .build-protoc-gen-swift
PLUGIN := $(PLUGIN_SCRATCH)/release/protoc-gen-swift
PROTOS := $(shell find proto -path proto/etcd -prune -o -name '*.proto' -print | sort)
# UseAccessLevelOnImports: the package enables InternalImportsByDefault, so public generated
# types need `public import SwiftProtobuf`.
SWIFT_OPTS := --swift_opt=Visibility=Public --swift_opt=FileNaming=PathToUnderscores --swift_opt=UseAccessLevelOnImports=true

.PHONY: flake-hunt web-screenshot deps build test package-check spec-check perf-doc alerts-test run run-ha proto proto-check proto-c bench clean plugin multihost-test soak soak-ha sim \
  fuzz flood agent-asan leader-following-test trust-test group-following-test fuzz-agent grpc-plugin etcd-proto etcd-swift etcd-proto-check

# The etcd v3 client (Sources/CamsyncEtcd): etcd's API protos, copied from Debian's
# golang-etcd-server-dev (the same 3.4 release as etcd-server) into proto/etcd with the Go-only
# options stripped (tools/etcd-proto.sh), then Swift messages + grpc-swift-2 client stubs.
ETCD_PROTO_OUT := Sources/CamsyncEtcd/Generated
ETCD_PROTOS := $(shell find proto/etcd -name '*.proto' | sort)
GRPC_PLUGIN_SCRATCH := .build-protoc-gen-grpc-swift
GRPC_PLUGIN := $(GRPC_PLUGIN_SCRATCH)/release/protoc-gen-grpc-swift-2
ETCD_OPTS := --swift_opt=Visibility=Internal --swift_opt=FileNaming=PathToUnderscores \
  --grpc-swift-2_opt=Visibility=Internal,Server=false,Client=true,FileNaming=PathToUnderscores

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

# `swift build` also builds the C display agent (camsync-display-agent, a SwiftPM C target in agent/).
build: deps
	$(SWIFT) build

# agent-asan first: DisplayAgentTests run one cluster with the sanitizer build of the agent.
# leader-following-test: the C agent's leader-following rule against the shared table of cases.
test: deps package-check spec-check alerts-test agent-asan leader-following-test trust-test group-following-test
	$(SWIFT) test

# The Prometheus rules in deploy/prometheus: valid, and their unit tests pass (promtool from Debian's
# prometheus package, which `deps` installs; docs/OPERATIONS.md "Alerts").
alerts-test: deps
	promtool check rules deploy/prometheus/camsync-rules.yml
	promtool check config deploy/prometheus/prometheus.yml
	cd deploy/prometheus && promtool test rules tests/camsync-rules-test.yml

# Package.swift declares exactly the modules each target imports.
package-check:
	@python3 tools/check-package-imports.py && echo "package-check: Package.swift matches the imports"

# Every SPEC rule id cited in Sources, Tests, docs, scenarios, agent, proto, deploy, Fuzz, README.md
# and this Makefile is defined in docs/SPEC.md; no file cites an issue number or a folder outside the
# repository (tools/check-spec-rules.py).
spec-check:
	@python3 tools/check-spec-rules.py --self-test >/dev/null
	@python3 tools/check-spec-rules.py

# The network-namespace lab (needs root): the lab's own self-test, then the cluster across namespaces.
# `make test` runs MultiHostTests and MultiHostHATests too; they skip themselves with a message where namespaces are not allowed.
multihost-test: deps
	@if deploy/netns/lab.sh check; then deploy/netns/selftest.sh && $(SWIFT) test --filter 'MultiHost(HA)?Tests'; \
	else echo "multihost-test: skipped (network namespaces need root and iproute2)"; fi

# The deterministic simulator on a long batch of seeds (a fixed batch runs in `make test`,
# CamsyncSimTests). `make sim SEEDS=1-1000 SIM_ARGS="--mode embedded"`; a failing seed prints the
# command that replays it.
SEEDS ?= 1-200
SIM_ARGS ?=
sim: build
	"$$($(SWIFT) build --show-bin-path)/camsync" sim --seeds $(SEEDS) $(SIM_ARGS)

# The flake hunt (docs/TESTING.md): the process, etcd and soak suites ROUNDS times on one build, the
# last HOG_ROUNDS beside two CPU-bound busy loops; prints each round's time, load and failures.
ROUNDS ?= 10
HOG_ROUNDS ?= 3
flake-hunt: deps
	ROUNDS=$(ROUNDS) HOG_ROUNDS=$(HOG_ROUNDS) SWIFT=$(SWIFT) tools/flake-hunt.sh

# A longer soak with faults and the history checker (the short one runs in `make test`).
SOAK_SECONDS ?= 300
SOAK_SEED ?= 1
soak: build
	@netns=""; if deploy/netns/lab.sh check 2>/dev/null; then netns="--netns deploy/netns/lab.sh"; \
	else echo "soak: network namespaces not available here; no partition faults"; fi; \
	"$$($(SWIFT) build --show-bin-path)/camsync" soak --duration $(SOAK_SECONDS) --seed $(SOAK_SEED) $$netns

# The HA soak with the partition nemesis: etcd members, coordinators and nodes each in a network
# namespace, links cut and healed (docs/TESTING.md "HA soak"); a short one runs in `make test`.
SOAK_HA_SECONDS ?= 600
soak-ha: build
	@if deploy/netns/lab.sh cut-check; then \
	  "$$($(SWIFT) build --show-bin-path)/camsync" soak --ha --netns deploy/netns/lab.sh --duration $(SOAK_HA_SECONDS) --seed $(SOAK_SEED); \
	else echo "soak-ha: needs root, network namespaces and nftables (deploy/netns/lab.sh cut-check)"; exit 1; fi

# The main job: the narrated demo on a local multi-process cluster.
run: build
	"$$($(SWIFT) build --show-bin-path)/camsync" demo

# The story on three coordinators over etcd; the leader is killed mid-story (SPEC K6).
run-ha: build
	"$$($(SWIFT) build --show-bin-path)/camsync" demo --ha

# Build protoc-gen-swift once from the pinned swift-protobuf (no SwiftPM build plugin: see BUILD-NOTES).
$(PLUGIN):
	$(SWIFT) build -c release --product protoc-gen-swift --scratch-path $(PLUGIN_SCRATCH)

plugin: deps $(PLUGIN)

proto: plugin etcd-swift
	mkdir -p $(PROTO_OUT)
	rm -f $(PROTO_OUT)/*.pb.swift
	protoc --plugin=protoc-gen-swift=$(PLUGIN) -I proto \
	  --swift_out=$(PROTO_OUT) $(SWIFT_OPTS) \
	  $(PROTOS)

proto-check: plugin etcd-proto-check
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	protoc --plugin=protoc-gen-swift=$(PLUGIN) -I proto \
	  --swift_out=$$tmp $(SWIFT_OPTS) $(PROTOS); \
	if diff -r $$tmp $(PROTO_OUT) >/dev/null; then echo "proto-check: generated code is up to date"; \
	else diff -r $$tmp $(PROTO_OUT) | head -40; echo "proto-check: committed code differs; run 'make proto'"; exit 1; fi
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	agent/tools/proto-c.sh $$tmp; \
	if diff -r $$tmp $(PROTO_C_OUT) >/dev/null; then echo "proto-check: generated C code is up to date"; \
	else diff -r $$tmp $(PROTO_C_OUT) | head -40; echo "proto-check: committed C code differs; run 'make proto-c'"; exit 1; fi

# The display agent's protobuf-c code (protoc-c 1.4; proto3 `optional` is rewritten, see the script).
PROTO_C_OUT := agent/generated
proto-c: deps
	agent/tools/proto-c.sh $(PROTO_C_OUT)

# The display agent under AddressSanitizer + UndefinedBehaviorSanitizer (DisplayAgentTests runs a
# cluster with it), and libFuzzer over its frame decoding. Same sources as the SwiftPM target.
CLANG ?= $(shell command -v clang || echo /opt/swift/usr/bin/clang)
AGENT_SCRATCH := .build-agent
AGENT_SOURCES := $(wildcard agent/src/*.c) $(wildcard agent/generated/camsync/v1/*.c)
AGENT_HEADERS := $(wildcard agent/src/*.h) $(wildcard agent/generated/camsync/v1/*.h)
AGENT_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Iagent/src -Iagent/generated -g -O1 \
  -fno-omit-frame-pointer -fno-sanitize-recover=undefined
AGENT_LIBS := -lzmq -lprotobuf-c -lyaml
$(AGENT_SCRATCH)/camsync-display-agent-asan: $(AGENT_SOURCES) $(AGENT_HEADERS)
	mkdir -p $(AGENT_SCRATCH)
	$(CLANG) $(AGENT_CFLAGS) -fsanitize=address,undefined $(AGENT_SOURCES) $(AGENT_LIBS) -o $@
agent-asan: deps $(AGENT_SCRATCH)/camsync-display-agent-asan

# SPEC K7: the agent's leader-following rule (agent/src/follow.c) against the table of cases the
# Swift FollowedLeader is tested with too (Tests/Fixtures/leader-following.tsv), under ASan + UBSan.
LEADER_TABLE := Tests/Fixtures/leader-following.tsv
$(AGENT_SCRATCH)/leader-following-test: agent/src/follow.c agent/src/follow.h agent/tests/leader_following_test.c
	mkdir -p $(AGENT_SCRATCH)
	$(CLANG) $(AGENT_CFLAGS) -fsanitize=address,undefined agent/src/follow.c agent/tests/leader_following_test.c -o $@
leader-following-test: $(AGENT_SCRATCH)/leader-following-test
	$(AGENT_SCRATCH)/leader-following-test $(LEADER_TABLE)

# Which coordinators the agent believes (a CURVE key pair per coordinator) (agent/src/trust.c), the cases of the Swift
# TrustedCoordinatorsTests, under ASan + UBSan.
TRUST_TEST_SOURCES := agent/src/trust.c agent/generated/camsync/v1/heartbeat.pb-c.c agent/tests/trust_test.c
$(AGENT_SCRATCH)/trust-test: $(TRUST_TEST_SOURCES) agent/src/trust.h agent/src/config.h
	mkdir -p $(AGENT_SCRATCH)
	$(CLANG) $(AGENT_CFLAGS) -fsanitize=address,undefined $(TRUST_TEST_SOURCES) -lzmq -lprotobuf-c -o $@
trust-test: $(AGENT_SCRATCH)/trust-test
	$(AGENT_SCRATCH)/trust-test

# Following one device group (docs/PROTOCOL.md "Following one group"): the rules in agent/src/group.c
# and the session driven with frames and no sockets (duplicates, gaps and the group's replay,
# bookmarks, a move to another group), under ASan + UBSan.
GROUP_TEST_SOURCES := $(filter-out agent/src/main.c,$(AGENT_SOURCES)) agent/tests/group_following_test.c
$(AGENT_SCRATCH)/group-following-test: $(GROUP_TEST_SOURCES) $(AGENT_HEADERS)
	mkdir -p $(AGENT_SCRATCH)
	$(CLANG) $(AGENT_CFLAGS) -fsanitize=address,undefined $(GROUP_TEST_SOURCES) $(AGENT_LIBS) -o $@
group-following-test: $(AGENT_SCRATCH)/group-following-test
	$(AGENT_SCRATCH)/group-following-test

FUZZ_AGENT_SECONDS ?= 60
fuzz-agent: deps
	mkdir -p $(AGENT_SCRATCH)/corpus $(AGENT_SCRATCH)/crashes
	$(CLANG) $(AGENT_CFLAGS) -fsanitize=fuzzer,address,undefined \
	  $(filter-out agent/src/main.c,$(AGENT_SOURCES)) agent/fuzz/fuzz_frames.c $(AGENT_LIBS) -o $(AGENT_SCRATCH)/fuzz-frames
	ASAN_OPTIONS=detect_leaks=1 $(AGENT_SCRATCH)/fuzz-frames $(AGENT_SCRATCH)/corpus \
	  -max_total_time=$(FUZZ_AGENT_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	  -artifact_prefix=$(AGENT_SCRATCH)/crashes/ -print_final_stats=1

# protoc-gen-grpc-swift-2 from the pinned grpc-swift-protobuf, in its own scratch path like `plugin`.
$(GRPC_PLUGIN):
	$(SWIFT) build -c release --product protoc-gen-grpc-swift-2 --scratch-path $(GRPC_PLUGIN_SCRATCH)

grpc-plugin: deps $(GRPC_PLUGIN)

# Refresh proto/etcd from the installed Debian package, then regenerate the Swift code.
etcd-proto: plugin grpc-plugin
	@$(MAKE) --no-print-directory deps APT_PACKAGES=golang-etcd-server-dev
	rm -rf proto/etcd
	tools/etcd-proto.sh proto/etcd
	@$(MAKE) --no-print-directory etcd-swift

# Regenerate the Swift code from the committed proto/etcd.
etcd-swift: plugin grpc-plugin
	mkdir -p $(ETCD_PROTO_OUT)
	rm -f $(ETCD_PROTO_OUT)/*.swift
	protoc --plugin=protoc-gen-swift=$(PLUGIN) --plugin=protoc-gen-grpc-swift-2=$(GRPC_PLUGIN) -I proto \
	  --swift_out=$(ETCD_PROTO_OUT) --grpc-swift-2_out=$(ETCD_PROTO_OUT) $(ETCD_OPTS) \
	  $(ETCD_PROTOS)

# The committed etcd protos equal the package's (when it is installed) and the Swift code is current.
etcd-proto-check: plugin grpc-plugin
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	if dpkg-query -W -f='$${Status}' golang-etcd-server-dev 2>/dev/null | grep -q "install ok installed"; then \
	  tools/etcd-proto.sh $$tmp/proto >/dev/null; \
	  if diff -r $$tmp/proto proto/etcd >/dev/null; then echo "etcd-proto-check: proto/etcd matches golang-etcd-server-dev"; \
	  else diff -r $$tmp/proto proto/etcd | head -20; echo "etcd-proto-check: proto/etcd differs from the package; run 'make etcd-proto'"; exit 1; fi; \
	else echo "etcd-proto-check: golang-etcd-server-dev not installed; proto/etcd not compared with it"; fi; \
	mkdir -p $$tmp/swift; \
	protoc --plugin=protoc-gen-swift=$(PLUGIN) --plugin=protoc-gen-grpc-swift-2=$(GRPC_PLUGIN) -I proto \
	  --swift_out=$$tmp/swift --grpc-swift-2_out=$$tmp/swift $(ETCD_OPTS) $(ETCD_PROTOS); \
	if diff -r $$tmp/swift $(ETCD_PROTO_OUT) >/dev/null; then echo "etcd-proto-check: generated etcd client is up to date"; \
	else diff -r $$tmp/swift $(ETCD_PROTO_OUT) | head -40; echo "etcd-proto-check: committed etcd client differs; run 'make etcd-swift'"; exit 1; fi

# The whole benchmark suite in release (about 12 min on 2 cores; `fleet` about 3 of them): `make bench BENCH_ARGS="--quick latency"`.
BENCH_ARGS ?=
BENCH_JSON ?= .build/bench-report.json
bench: deps
	$(SWIFT) build -c release --product camsync
	$$($(SWIFT) build -c release --show-bin-path)/camsync bench --json-file $(BENCH_JSON) $(BENCH_ARGS)

# docs/PERFORMANCE.md's figures table, from the report in docs/perf/bench.json (tools/perf-doc.py).
# A new report: `make bench` (or any `camsync bench --json-file FILE`), then
# `make perf-doc PERF_RECORD=.build/bench-report.json` keeps it as docs/perf/bench.json with the commit.
PERF_RECORD ?=
perf-doc:
	@python3 tools/perf-doc.py --self-test >/dev/null
	@python3 tools/perf-doc.py $(if $(PERF_RECORD),--record $(PERF_RECORD))

clean:
	rm -rf .build .build-* .build_*

# Hostile input (docs/HOSTILE.md).
# libFuzzer over one frame at the coordinator: decode → map → authorise → apply, invariants checked.
# The fuzzer target only exists when CAMSYNC_FUZZ is set (never in the normal build); it is built
# in its own scratch path with -sanitize=fuzzer. FUZZ_SECONDS bounds the run; crashes land in .build-fuzz/crashes.
FUZZ_SECONDS ?= 60
FUZZ_SCRATCH := .build-fuzz
fuzz: build
	"$$($(SWIFT) build --show-bin-path)/camsync" fuzz --inputs 20000
	"$$($(SWIFT) build --show-bin-path)/camsync" fuzz --write-corpus $(FUZZ_SCRATCH)/seeds
	CAMSYNC_FUZZ=1 $(SWIFT) build -c release --scratch-path $(FUZZ_SCRATCH) --product camsync-fuzz \
	  -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library
	mkdir -p $(FUZZ_SCRATCH)/corpus $(FUZZ_SCRATCH)/crashes
	SWIFT_BACKTRACE=enable=no $(FUZZ_SCRATCH)/release/camsync-fuzz $(FUZZ_SCRATCH)/corpus $(FUZZ_SCRATCH)/seeds \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	  -artifact_prefix=$(FUZZ_SCRATCH)/crashes/ -print_final_stats=1

# A million adversarial frames at a real coordinator (FLOOD_FRAMES to change; FLOOD_ARGS for more flags).
FLOOD_FRAMES ?= 1000000
flood: build
	"$$($(SWIFT) build --show-bin-path)/camsync" flood --frames $(FLOOD_FRAMES) $(FLOOD_ARGS)

# The README's picture of the live web view, taken by WebViewTests in headless Chromium.
web-screenshot: deps
	CAMSYNC_WEB_SCREENSHOT=$(CURDIR)/docs/images/web-view.png $(SWIFT) test --filter WebViewTests
