#!/usr/bin/env python3
"""Package.swift must match the imports exactly: every module a target imports is declared as its
dependency, and every declared dependency is imported (test targets may also list the `camsync`
executable, so that `swift test` builds it before spawning it). Run by `make test` (docs/OPERATIONS.md)."""
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
for problem in problems:
    print(f"Package.swift: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
