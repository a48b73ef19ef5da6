#!/usr/bin/env python3
"""Package.swift must match the imports exactly: every module a target imports is declared as its
dependency, and every declared dependency is imported (test targets may also list the `camsync`
executable, so that `swift test` builds it before spawning it). And the pure cores link no I/O
library: neither they nor anything they depend on, however indirectly, is ZeroMQ, GRDB, gRPC, NIO
or the etcd client (docs/DEVELOPING.md "One loop, two worlds"). Run by `make test`."""
import glob, json, re, subprocess, sys

SYSTEM = {"Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Testing", "Synchronization", "XCTest"}
IMPORT = re.compile(r"^(?:@testable |public |internal |package )*import (?:struct |enum |class |func )?(\w+)", re.M)

package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
problems = []
for target in package["targets"]:
    name = target["name"]
    path = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
    declared = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                declared.add(dependency[kind][0])
    imported = set()
    for source in glob.glob(path + "/**/*.swift", recursive=True):
        imported.update(IMPORT.findall(open(source, encoding="utf-8").read()))
    imported -= SYSTEM
    allowed_extra = {"camsync"} if target["type"] == "test" else set()
    if missing := sorted(imported - declared):
        problems.append(f"{name}: imports {', '.join(missing)} without declaring it")
    if unused := sorted(declared - imported - allowed_extra):
        problems.append(f"{name}: declares {', '.join(unused)} but never imports it")
# The pure cores: protocol logic that takes a message or a tick and returns actions.
PURE = ["CamsyncPolicy", "CamsyncWire", "CamsyncNode", "CamsyncCoordinatorCore"]
IO = re.compile(r"^(ZeroMQ|CZMQ|GRDB\w*|GRPC\w*|NIO\w*|CamsyncEtcd|Hummingbird\w*)$")
edges = {}
for target in package["targets"]:
    edges[target["name"]] = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                edges[target["name"]].add(dependency[kind][0])
for core in PURE:
    if core not in edges:
        problems.append(f"{core}: a pure core named in tools/check-package-imports.py is not a target")
        continue
    seen, stack, path = set(), [core], {core: [core]}
    while stack:
        module = stack.pop()
        for dependency in sorted(edges.get(module, ())):
            if dependency in seen:
                continue
            seen.add(dependency)
            path[dependency] = path[module] + [dependency]
            if IO.match(dependency):
                problems.append(f"{core} is a pure core but links {dependency}: {' -> '.join(path[dependency])}")
            stack.append(dependency)
for problem in problems:
    print(f"Package.swift: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
