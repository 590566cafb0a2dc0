#!/usr/bin/env python3
"""Writes docs/RESULTS.md's table on real-time noise (between its `realtime-noise` markers):
`discern` beside `newreno` behind CoDel (scenarios/codel-realtime.toml, every loss a CoDel drop)
on the simulator, on the simulator with uniform per-packet jitter of 0.5, 1 and 2 ms at most
(order kept), with the endpoints' timers on millisecond ticks (`timer_granularity`, as a tokio
runtime's), with both, and on the namespaces (`--link netns`, root only; this CI kernel has no CoDel
qdisc, so the user-space link carries it). Seeds 1 to N on each; per row `discern`'s lost
packets a run, the share of its loss events it called congestion, its share of the two flows'
goodput and the bottleneck's p95 queueing delay, as mean ± standard deviation over the seeds.

    scripts/realtime_noise.py               # runs everything (about 4 minutes), writes RESULTS
    scripts/realtime_noise.py --print       # runs, prints, writes nothing
    scripts/realtime_noise.py --reuse       # re-tabulates out/realtime-noise
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_eval import BINARY, ROOT, replace_between, run  # noqa: E402

SCENARIO = ROOT / "scenarios" / "codel-realtime.toml"
MARKER = "realtime-noise"


def jitter(max_ms):
    return ["--set", f'link.bottleneck.jitter={{ model = "uniform", max = "{max_ms}ms" }}']


# The endpoints' timers on a tokio runtime's millisecond ticks (`timer_granularity`).
TICKS = ["--set", 'timer_granularity="1ms"']

ROWS = [
    ("simulator", "sim", []),
    ("simulator, jitter up to 0.5 ms", "sim-jitter-0.5ms", jitter(0.5)),
    ("simulator, jitter up to 1 ms", "sim-jitter-1ms", jitter(1)),
    ("simulator, jitter up to 2 ms", "sim-jitter-2ms", jitter(2)),
    ("simulator, endpoint timers on 1 ms ticks", "sim-ticks-1ms", TICKS),
    ("simulator, 1 ms ticks and jitter up to 1 ms", "sim-ticks-jitter-1ms", TICKS + jitter(1)),
    ("namespaces (real time)", "netns", ["--link", "netns", "--jobs", "1"]),
]


def figures(summary):
    """One run: discern's losses and verdicts, its goodput share, the p95 queueing delay."""
    discern, peer = summary["flows"][0], summary["flows"][1]
    v = discern["verdicts"]
    total = discern["goodput_bps"] + peer["goodput_bps"]
    return {
        "lost": discern["lost_packets"],
        "congestion": v["congestion"],
        "judged": v["congestion"] + v["random"],
        "share": discern["goodput_bps"] / total if total else float("nan"),
        "p95_ms": (summary["links"][0]["queue_delay"] or {}).get("p95_s", float("nan")) * 1e3,
    }


def spread(xs, fmt):
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{fmt.format(statistics.mean(xs))} ± {fmt.format(sd)}"


def row(label, out, seeds):
    runs = [out / f"seed={s}" / "summary.json" for s in seeds]
    if not all(r.exists() for r in runs):
        return f"| {label} | not run | | | |"
    f = [figures(json.loads(r.read_text())) for r in runs]
    called = [x["congestion"] / x["judged"] for x in f if x["judged"]]
    calls = (f"{sum(x['congestion'] for x in f) / max(1, sum(x['judged'] for x in f)):.0%} "
             f"({min(called):.0%}-{max(called):.0%})") if called else "-"
    return (f"| {label} | {spread([x['lost'] for x in f], '{:.0f}')} | {calls} | "
            f"{spread([x['share'] for x in f], '{:.2f}')} | "
            f"{spread([x['p95_ms'] for x in f], '{:.1f}')} |")


def table(out, seeds):
    lines = [
        "| where | `discern`'s lost packets a run | of its loss events, called congestion "
        "(all seeds; range) | `discern`'s share | p95 queueing delay, ms |",
        "|---|---|---|---|---|",
    ]
    lines += [row(label, out / name, seeds) for label, name, _ in ROWS]
    lines += [
        "",
        f"Seeds {seeds[0]} to {seeds[-1]}, mean ± standard deviation over them; "
        "`scenarios/codel-realtime.toml` (8 Mbit/s, 30 ms, CoDel, 20 s, beside `newreno`). "
        "Written by `scripts/realtime_noise.py`.",
    ]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=5, help="seeds per row")
    p.add_argument("--out", type=Path, default=ROOT / "out" / "realtime-noise")
    p.add_argument("--reuse", action="store_true", help="tabulate an earlier run's outputs")
    p.add_argument("--print", action="store_true", help="print the table, write nothing")
    a = p.parse_args()
    if not a.reuse:
        if not BINARY.exists():
            sys.exit(f"{BINARY} not found: cargo build --release -p quinn-discern-harness")
        for _, name, extra in ROWS:
            if name == "netns" and os.geteuid() != 0:
                print("not root: the namespaces row is left out", file=sys.stderr)
                continue
            run([BINARY, "run", SCENARIO, "--runs", str(a.runs), "--out", a.out / name] + extra,
                stdout=subprocess.DEVNULL)
    text = table(a.out, list(range(1, a.runs + 1)))
    print(text)
    if not a.print:
        replace_between(ROOT / "docs" / "RESULTS.md", MARKER, text)


if __name__ == "__main__":
    main()
