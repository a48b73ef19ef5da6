#!/usr/bin/env python3
"""Writes docs/PERFORMANCE.md's figures table from a `camsync bench` JSON report.

  python3 tools/perf-doc.py                      # the generated parts from docs/perf/bench.json and apart.json (make perf-doc)
  python3 tools/perf-doc.py --record REPORT      # keep REPORT as docs/perf/bench.json (with the commit), then the table
  python3 tools/perf-doc.py --check              # exit 1 if the page's table is not what the report gives
  python3 tools/perf-doc.py --self-test

Three parts of the page are generated, each between its markers: the targets table
(`perf-table`), every row of the benchmarks in ROWS_OF (`perf-rows`), and the figures measured
apart from the bench, from docs/perf/apart.json (`perf-apart`); everything else on the page is
written by hand and names a row instead of repeating its figure. A benchmark that failed shows each
target it did not judge (the report's `notRun`) as not run. Every number in the table comes from the report: a target's
measured figure, its threshold and basis, the floor rows its benchmark measured in the same run,
the load when that benchmark started. Only the cause of a miss is text kept here (CAUSES), each
pointing at the page's "Causes of misses".

The report is the JSON `camsync bench --json-file` writes (`BenchReport` in
Sources/CamsyncBench/Report.swift): command, quick, machine {cpus, cpuModel, memoryGiB, kernel,
os, loadAverage}, startedAt, results [{name, rows [{benchmark, scenario, latency {count, p50, p99,
max, …} | null, throughputPerSecond, rssMB, floorP50}], targets [{figure, measured, comparison
("<=" | ">="), target, unit ("us" | "/s" | "MB" | "x" | "n"), basis}], notes, seconds, error,
loadAverage}]. `--record` adds `commit` (the checkout's HEAD, "-dirty" when Sources or Package.swift
have changes), which the bench itself does not know.
"""
import json
import os
import re
import subprocess
import sys

DOC = "docs/PERFORMANCE.md"
REPORT = "docs/perf/bench.json"
APART = "docs/perf/apart.json"
BEGIN, END = "<!-- perf-table:begin -->", "<!-- perf-table:end -->"
ROWS_BEGIN, ROWS_END = "<!-- perf-rows:begin -->", "<!-- perf-rows:end -->"
APART_BEGIN, APART_END = "<!-- perf-apart:begin -->", "<!-- perf-apart:end -->"
# The benchmarks whose every row and note the page shows (the prose of "Fleet" names them).
ROWS_OF = ["fleet"]

# Why a target is missed, by figure (first match wins). Each names its part of "Causes of misses".
CAUSES = [
    (r"event reaches all .* nodes", "the raw PUB floor misses too (fan-out)"),
    (r"claim→grant p50, log on etcd", "hand-offs on 2 shared cores; standbys' work at commit (claims on etcd)"),
    (r"claim→grant p50, journal full", "thread hand-offs and wake-ups on 2 vCPUs (claim latency)"),
    (r"claim→grant p(50|99)", "thread hand-offs and wake-ups on 2 vCPUs (claim latency)"),
    (r"commands/s, journal full", "the coordinator's CPU per command, clients on the same cores (throughput)"),
    (r"share of the raw ceiling", "the ceiling is etcd alone; the figure is the whole cluster (etcd ceiling)"),
    (r"commands/s, log on etcd", "the machine's two cores, not etcd (throughput on etcd)"),
    (r"shard processes.*every node follows", "the node sessions' own CPU, on the same 2 cores (HA leader kill with a fleet)"),
    (r"shard processes.*first ack", "the new leader's first turn: a heartbeat and a bookmark to every node at once (HA leader kill with a fleet)"),
    (r"mass rejoin .*ack p99", "the leader's threads wait for a core twice as long as they run: nodes and standbys on its 2 cores (the mass rejoin)"),
    (r"mass rejoin .*CURVE.*all rejoined", "every node's handshakes with 3 coordinators saturate 2 cores, then registration back-offs (the mass rejoin)"),
    (r"every node follows", "1,000 node sessions in one process on 2 cores (failover with 1,000 nodes)"),
    (r"CURVE, journal full.*(a batch reaches|command → ack)",
     "snapshots encoded beside the loop, each copy encrypted, on shared cores (deployed delivery and ack)"),
    (r"descriptors at the leader per node|the leader's memory per node", "libzmq's connection with CURVE's ZAP pipes, then the state (the leader's memory)"),
    (r"fleet, .* a batch reaches every node of its group", "the leader's threads waiting for a core behind the nodes' (delivery miss)"),
    (r"busiest 100 ms", "not yet explained: see the run's notes"),
    (r"fleet", "not yet explained: see the run's notes"),
    (r"HA failover", "not yet explained: see the run's notes"),
    (r"recovery|restart|rebuild", "replay through the engine on a loaded host"),
]

FLOOR = re.compile(r"raw |\(floor\)|floor|fdatasync|coordinator empty|ceiling", re.IGNORECASE)


def duration(us):
    if us < 10:
        return f"{us:.2f} µs"
    if us < 1000:
        return f"{us:.1f} µs" if us < 100 else f"{us:.0f} µs"
    if us < 1_000_000:
        return f"{us / 1000:.2f} ms" if us < 10_000 else f"{us / 1000:.1f} ms"
    return f"{us / 1_000_000:.2f} s"


def rate(per_second):
    if per_second >= 1_000_000:
        return f"{per_second / 1_000_000:.2f}M/s"
    if per_second >= 10_000:
        return f"{per_second / 1000:.1f}k/s"
    if per_second >= 1000:
        return f"{per_second / 1000:.2f}k/s"
    return f"{per_second:.0f}/s"


def value(v, unit):
    return {
        "us": duration,
        "/s": rate,
        "MB": lambda x: f"{x:.1f} MB",
        "x": lambda x: f"{x:.2f}×",
        "n": lambda x: f"{x:.0f}",
    }[unit](v)


def met(t):
    return t["measured"] <= t["target"] if t["comparison"] == "<=" else t["measured"] >= t["target"]


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def labels(figure):
    """The parenthesised parts of a figure, longest first: "(mutual TLS + auth)" → ["mutual TLS + auth"]."""
    return sorted(re.findall(r"\(([^()]+)\)", figure), key=len, reverse=True)


def row_text(row, label=None):
    """A row's figure; `label`, which the target's figure already names, is left out of its scenario."""
    if label:
        row = dict(row, scenario=row["scenario"].replace(label + ": ", "").replace(f" ({label})", ""))
    lat = row.get("latency")
    if lat and lat.get("count", 0) > 0:
        return f"{row['scenario']}: p50 {duration(lat['p50'])}, p99 {duration(lat['p99'])}"
    if row.get("throughputPerSecond") is not None:
        return f"{row['scenario']}: {rate(row['throughputPerSecond'])}"
    if row.get("rssMB") is not None:
        return f"{row['scenario']}: {row['rssMB']:.1f} MB"
    return row["scenario"]


def words(text):
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def measured_row(result, target):
    """The row a target's figure was taken from: the non-floor row sharing the most words with it."""
    want = words(target["figure"])
    best, score = None, 0.0
    for r in result["rows"]:
        if r["benchmark"] == "floor" or FLOOR.search(r["scenario"]):
            continue
        have = words(r["scenario"])
        s = len(want & have) - 0.01 * len(have - want)
        if s > score:
            best, score = r, s
    return best


def floors(result, target):
    """What the run measured as this target's floor, as text."""
    if (target["unit"] == "x" and "→" in target["figure"]) or target["unit"] == "n":
        return "—"  # flat cost (the basis compares sizes of the same run); counts have no floor
    floor_p50 = None
    rows = [r for r in result["rows"] if r["benchmark"] == "floor" or FLOOR.search(r["scenario"])]
    if target["unit"] == "/s":
        rows = [r for r in rows if "ceiling" in r["scenario"]]
    else:
        row = measured_row(result, target)
        floor_p50 = row.get("floorP50") if row else None
        if floor_p50:
            same = [r for r in rows if r.get("latency") and r["latency"].get("p50") == floor_p50]
            if same:
                label = next((l for l in labels(target["figure"]) if l in same[0]["scenario"]), None)
                return cell(row_text(same[0], label))
    for label in labels(target["figure"]):
        matching = [r for r in rows if label in r["scenario"]]
        if matching:
            return "; ".join(cell(row_text(r, label)) for r in matching[:2])
    if target["unit"] != "/s" and floor_p50:
        return f"floor p50 {duration(floor_p50)}" + (" (echo + fdatasync)" if "journal full" in row["scenario"] else "")
    # No label of the figure names a floor row: the unlabelled ones.
    rows = [r for r in rows if not re.search(r"\((mutual TLS|plaintext)", r["scenario"])][:2]
    return "; ".join(cell(row_text(r)) for r in rows) or "—"


def cause(target):
    if met(target):
        return ""
    for pattern, text in CAUSES:
        if re.search(pattern, target["figure"]):
            return text
    return "not yet explained"


def not_run(result):
    """The targets a failed benchmark did not judge; a report recorded before `notRun` existed names
    none, and then the benchmark's targets count as one (those of "Targets" measured by it)."""
    if result.get("notRun") is not None:
        return result["notRun"]
    return [f"every target measured by `{result['name']}` (\"Targets\")"]


def load_range(results):
    loads = [r["loadAverage"] for r in results if r.get("loadAverage") is not None]
    return f"{min(loads):.2f}–{max(loads):.2f}" if loads else "not recorded"


def table(report):
    m = report["machine"]
    results = report["results"]
    total = sum(r.get("seconds", 0) for r in results)
    out = [
        BEGIN,
        f"<!-- generated by tools/perf-doc.py from {REPORT}: edit neither by hand; `make perf-doc` -->",
        "",
        f"**Run:** `{report['command']}`{' — a quick run (small samples)' if report.get('quick') else ' — the full suite'}, "
        f"started {report['startedAt']}, {total / 60:.1f} min; commit `{report.get('commit', 'not recorded')}`.  ",
        f"**Machine:** {m['cpus']} CPUs ({m['cpuModel']}), {m['memoryGiB']} GiB, kernel {m['kernel']}, {m['os']}.  ",
        f"**Load** (1-minute average): {m['loadAverage']:.2f} at the start; {load_range(results)} at the "
        "benchmarks' starts (the machine is shared).",
        "",
        "| benchmark | figure | measured | target (basis) | floor in the same run | load | verdict | cause of a miss |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        load = f"{result['loadAverage']:.2f}" if result.get("loadAverage") is not None else ""
        if result.get("error"):
            out.append(f"| {result['name']} | — | failed: {cell(result['error'].strip())} | | | {load} | **failed** | |")
            for figure in not_run(result):
                out.append(f"| {result['name']} | {cell(figure)} | — | | | {load} | **not run** | the benchmark failed |")
            continue
        if not result["targets"]:
            skipped = [n for n in result.get("notes", []) if n.startswith("skipped")]
            if skipped:
                out.append(f"| {result['name']} | — | {cell(skipped[0])} | | | {load} | not run | |")
            continue
        for t in result["targets"]:
            sign = "≤" if t["comparison"] == "<=" else "≥"
            basis = f" ({cell(t['basis'])})" if t.get("basis") else ""
            floor = floors(result, t)
            verdict = "met" if met(t) else "**missed**"
            out.append(f"| {result['name']} | {cell(t['figure'])} | {value(t['measured'], t['unit'])} | "
                       f"{sign} {value(t['target'], t['unit'])}{basis} | {floor} | {load} | {verdict} | {cell(cause(t))} |")
    targets = [t for r in results for t in r["targets"]]
    missed = sum(1 for t in targets if not met(t))
    not_run_count = sum(len(not_run(r)) for r in results if r.get("error"))
    out += ["", f"{len(targets) + not_run_count} targets: {len(targets) - missed} met, {missed} missed, {not_run_count} not run.", END]
    return "\n".join(out)


def latency_cells(row):
    lat = row.get("latency")
    if not lat or lat.get("count", 0) == 0:
        return "", ""
    if lat["count"] == 1:
        return duration(lat["p50"]), ""
    return duration(lat["p50"]), duration(lat["p99"])


def rows_part(report):
    """Every row of the benchmarks in ROWS_OF (floors aside: the targets table shows them; the notes
    stay in the report)."""
    out = [ROWS_BEGIN, f"<!-- generated by tools/perf-doc.py from {REPORT}: edit neither by hand; `make perf-doc` -->"]
    for result in report["results"]:
        if result["name"] not in ROWS_OF:
            continue
        out += ["", f"**{result['name']}**", ""]
        if result.get("error"):
            out.append(f"Failed: {cell(result['error'].strip())}")
            continue
        out += ["| row | p50 | p99 | rate | RSS |", "|---|---|---|---|---|"]
        for row in result["rows"]:
            if row["benchmark"] == "floor":
                continue  # the targets table shows each target's floor
            p50, p99 = latency_cells(row)
            per_second = row.get("throughputPerSecond")
            rss = row.get("rssMB")
            out.append(f"| {cell(row['scenario'])} | {p50} | {p99} | {rate(per_second) if per_second is not None else ''} | "
                       f"{f'{rss:.1f} MB' if rss is not None else ''} |")
    out.append(ROWS_END)
    return "\n".join(out)


def apart_part(apart):
    """The figures measured apart from the bench (docs/perf/apart.json): [{figure, measured, target,
    verdict, how, run}]; `target` and `verdict` may be empty where the project sets none."""
    out = [APART_BEGIN, f"<!-- generated by tools/perf-doc.py from {APART}: edit neither by hand; `make perf-doc` -->", "",
           "| figure | measured | target | verdict | how | run |", "|---|---|---|---|---|---|"]
    for f in apart:
        verdict = f.get("verdict", "")
        out.append(f"| {cell(f['figure'])} | {cell(f['measured'])} | {cell(f.get('target', ''))} | "
                   f"{'**missed**' if verdict == 'missed' else verdict} | {cell(f['how'])} | {cell(f['run'])} |")
    out.append(APART_END)
    return "\n".join(out)


def replace(doc_text, begin, end, part):
    start, stop = doc_text.find(begin), doc_text.find(end)
    if start < 0 or stop < start:
        raise SystemExit(f"{DOC}: the markers {begin} … {end} are missing")
    return doc_text[:start] + part + doc_text[stop + len(end):]


def rewrite(doc_text, report, apart=None):
    doc_text = replace(doc_text, BEGIN, END, table(report))
    if ROWS_BEGIN in doc_text:
        doc_text = replace(doc_text, ROWS_BEGIN, ROWS_END, rows_part(report))
    if apart is not None and APART_BEGIN in doc_text:
        doc_text = replace(doc_text, APART_BEGIN, APART_END, apart_part(apart))
    return doc_text


def commit():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "Sources", "Package.swift", "Package.resolved"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return head + ("-dirty" if dirty else "")


def self_test():
    report = {
        "command": "camsync bench --quick latency", "quick": True, "startedAt": "2026-01-01T00:00:00Z",
        "machine": {"cpus": 2, "cpuModel": "x", "memoryGiB": 4, "kernel": "k", "os": "o", "loadAverage": 1.5},
        "results": [
            {"name": "latency", "seconds": 60, "loadAverage": 1.5, "notes": [], "error": None,
             "rows": [{"benchmark": "floor", "scenario": "raw DEALER/ROUTER echo, 52 B, 2 processes",
                       "latency": {"count": 10, "p50": 80.0, "p99": 120.0, "max": 300.0}},
                      {"benchmark": "latency", "scenario": "claim → ack + grant, journal off, 50 nodes",
                       "latency": {"count": 10, "p50": 150.0, "p99": 1500.0, "max": 2000.0}}],
             "targets": [{"figure": "claim→grant p50, journal off", "measured": 150.0, "comparison": "<=",
                          "target": 160.0, "unit": "us", "basis": "2 × floor p50 80.0µs"},
                         {"figure": "claim→grant p99, journal off", "measured": 1500.0, "comparison": "<=",
                          "target": 1000.0, "unit": "us", "basis": ""}]},
            {"name": "ha-latency", "seconds": 1, "loadAverage": 0.5, "rows": [], "targets": [], "error": None,
             "notes": ["skipped: etcd is not installed"]},
            {"name": "fanout", "seconds": 1, "loadAverage": 0.5, "rows": [], "targets": [], "notes": [], "error": "boom",
             "notRun": ["event reaches all nodes, p99"]},
            {"name": "fleet", "seconds": 1, "loadAverage": 0.5, "targets": [], "error": None, "notes": ["a note"],
             "rows": [{"benchmark": "fleet", "scenario": "100 nodes: command → ack",
                       "latency": {"count": 10, "p50": 500.0, "p99": 900.0, "max": 950.0}}]},
        ],
    }
    apart = [{"figure": "sim speed", "measured": "76×", "target": "≥ 100×", "verdict": "missed", "how": "camsync sim", "run": "x"}]
    doc = f"# t\n\nbefore\n{BEGIN}\nold\n{END}\nmid\n{ROWS_BEGIN}\n{ROWS_END}\n{APART_BEGIN}\n{APART_END}\nafter\n"
    new = rewrite(doc, report, apart)
    assert new.startswith("# t\n\nbefore\n" + BEGIN) and new.endswith(APART_END + "\nafter\n"), new
    assert "| fanout | event reaches all nodes, p99 | — | | | 0.50 | **not run** |" in new, new
    assert "| 100 nodes: command → ack | 500 µs | 900 µs |  |  |" in new and "a note" not in new, new
    assert "| sim speed | 76× | ≥ 100× | **missed** | camsync sim | x |" in new, new
    assert "| latency | claim→grant p50, journal off | 150 µs | ≤ 160 µs (2 × floor p50 80.0µs) | raw DEALER/ROUTER echo, 52 B, 2 processes: p50 80.0 µs, p99 120 µs | 1.50 | met |  |" in new, new
    assert "| 1.50 | **missed** | thread hand-offs" in new, new
    assert "skipped: etcd is not installed" in new and "**failed**" in new, new
    assert "3 targets: 1 met, 1 missed, 1 not run." in new, new
    assert rewrite(new, report, apart) == new
    assert value(51234, "/s") == "51.2k/s" and value(0.85, "x") == "0.85×" and value(2_410_000, "us") == "2.41 s"
    print("perf-doc: self-test passed")


def main(argv):
    if "--self-test" in argv:
        self_test()
        return 0
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
    os.chdir(root)
    if "--record" in argv:
        source = argv[argv.index("--record") + 1]
        with open(source) as f:
            report = json.load(f)
        report["commit"] = commit()
        os.makedirs(os.path.dirname(REPORT), exist_ok=True)
        with open(REPORT, "w") as f:
            json.dump(report, f, indent=2, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        print(f"perf-doc: {source} recorded as {REPORT} (commit {report['commit']})")
    with open(REPORT) as f:
        report = json.load(f)
    with open(APART) as f:
        apart = json.load(f)
    with open(DOC) as f:
        doc = f.read()
    new = rewrite(doc, report, apart)
    if "--check" in argv:
        if new != doc:
            print(f"perf-doc: {DOC}'s table differs from {REPORT}; run `make perf-doc`")
            return 1
        print(f"perf-doc: {DOC}'s table is {REPORT}'s")
        return 0
    if new != doc:
        with open(DOC, "w") as f:
            f.write(new)
        print(f"perf-doc: {DOC}'s table rewritten from {REPORT}")
    else:
        print(f"perf-doc: {DOC}'s table already matches {REPORT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
