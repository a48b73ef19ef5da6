#!/usr/bin/env python3
"""The repository stands on its own: every SPEC rule id it cites is defined in docs/SPEC.md, and no
file points at a folder outside the repository or at an issue number.

  python3 tools/check-spec-rules.py              # check the repository (exit 1 and file:line on a failure)
  python3 tools/check-spec-rules.py --self-test  # the checker's own cases

Rule ids: L, C, S, R, P, K or A, a number, optionally .N for a step (C2.4). docs/SPEC.md defines
an id where it writes it in bold (**C4**). Cited ids are looked for under the CITING paths below.
Issue numbers (the word issue followed by a number, or a number in parentheses after '#') and
references to a folder beside the repository are looked for in every text file git knows of.
"""
import os
import re
import subprocess
import sys

SPEC = "docs/SPEC.md"
CITING = ["Sources", "Tests", "docs", "scenarios", "agent", "proto", "deploy", "Fuzz", "README.md", "Makefile"]
# Tokens that look like rule ids and are not: the NIST curve in CryptoKit's `P256.Signing`.
NOT_RULES = {"P256"}

DEFINED = re.compile(r"\*\*([LCSRPKA][0-9]+(?:\.[0-9]+)?)\*\*")
CITED = re.compile(r"(?<![A-Za-z0-9_.\-/#])([LCSRPKA][0-9]+(?:\.[0-9]+)?)(?![A-Za-z0-9_])")
# Built from pieces so that this file does not match itself.
ISSUE = re.compile(r"\bissues?[ \t]+#?[0-9]+|\(#[0-9]+\)", re.IGNORECASE)
SHARED = re.compile(r"\.\./" + "shared\\b|\\bshared" + r"[ \t]+folder", re.IGNORECASE)
# The design notes the project started from are not in the repository: cite docs/ instead.
OUTSIDE = re.compile(r"\b" + "DES" + "IGN" + r"\b")


def defined_ids(spec_text):
    return set(DEFINED.findall(spec_text))


def cited_ids(line):
    """Rule ids on one line; a trailing '.N' that is not a defined step is read as a full stop."""
    return [m for m in CITED.findall(line) if m not in NOT_RULES]


def undefined(cited, defined):
    if cited in defined:
        return False
    base = cited.split(".")[0]
    # "C4." at the end of a sentence is C4; "C2.9" is a step C2 does not have.
    if "." in cited and base in defined and not any(d.startswith(base + ".") for d in defined):
        return False
    return True


def scan_rules(lines, defined):
    """(line number, id) of every cited id that docs/SPEC.md does not define."""
    return [(n, rid) for n, line in enumerate(lines, 1) for rid in cited_ids(line) if undefined(rid, defined)]


def scan_refs(lines):
    """(line number, text) of every issue number or shared-folder reference."""
    found = []
    for n, line in enumerate(lines, 1):
        for pattern in (ISSUE, SHARED, OUTSIDE):
            found += [(n, m.group(0)) for m in pattern.finditer(line)]
    return found


def text_lines(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def repository_files():
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], capture_output=True, check=True)
    return sorted(p for p in out.stdout.decode().split("\0") if p and os.path.isfile(p))


def check(root):
    os.chdir(root)
    spec = text_lines(SPEC)
    if spec is None:
        return [f"{SPEC}: missing"]
    defined = defined_ids("\n".join(spec))
    problems = []
    for path in repository_files():
        lines = text_lines(path)
        if lines is None:
            continue
        if path != SPEC and any(path == c or path.startswith(c + "/") for c in CITING):
            problems += [f"{path}:{n}: cites {rid}, which {SPEC} does not define" for n, rid in scan_rules(lines, defined)]
        problems += [f"{path}:{n}: refers to '{text}' (say what and why instead; the repository stands on its own)"
                     for n, text in scan_refs(lines)]
    return problems


def self_test():
    defined = defined_ids("- **C1** one holder\n  1. **C2.1** not visible\n- **C2** order\n- **K7** x\n- **P3** y")
    assert defined == {"C1", "C2", "C2.1", "K7", "P3"}, defined
    cases = [
        ("the holder keeps it (C1, K7).", []),
        ("see C2.1 and C2.9", ["C2.9"]),
        ("only one holder, as in C1.", []),
        ("K7. Then", []),
        ("a rule C15 that does not exist", ["C15"]),
        ("P256.Signing.PrivateKey()", []),
        ("ipad-C1 / 0xA1 / AC1 / c1 / #C1 / path/A2", []),
        ("L1–L4", ["L1", "L4"]),
    ]
    for line, want in cases:
        got = [rid for _, rid in scan_rules([line], defined)]
        assert got == want, (line, got, want)
    word = "iss" + "ue"
    refs = [
        (f"// {word.capitalize()} 26: a key pair per coordinator", 1),
        (f"the figure ({word}s 24 and 23)", 1),
        (f"see {word} #12", 1),
        ("fixed in (" + "#23)", 1),
        ("in the shared " + "folder beside", 1),
        ("targets of DES" + "IGN.md", 1),
        ("a design choice", 0),
        ("cat .." + "/shared/SPEC.md", 1),
        (f"an {word} with the web view", 0),
        ("#9 14:52:12 ipad-1 open", 0),
        ("border: 3px solid #111;", 0),
    ]
    for line, want in refs:
        got = len(scan_refs([line]))
        assert got == want, (line, got, want)
    print("check-spec-rules: self-test passed")


def main():
    if "--self-test" in sys.argv[1:]:
        self_test()
        return 0
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"spec-check: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"spec-check: every cited rule id is defined in {SPEC}; no issue numbers, nothing outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
