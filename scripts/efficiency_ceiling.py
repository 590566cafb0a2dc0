#!/usr/bin/env python3
"""Writes docs/RESULTS.md's table of the random board's efficiency beside the most a flow whose
slow start doubles its window could reach on each path (between its `efficiency-ceiling`
markers).

The board's efficiency alone is goodput / ((1 - loss rate) x capacity) over the whole run, so
packet headers and start-up count against it. This script computes, for every path a flow runs
alone on, the efficiency of an ideal flow with a standard slow start (its ceiling):

  - nothing arrives in the first round trip (the handshake);
  - then the window starts at quinn's initial window (ten full packets, RFC 9002 section 7.2)
    and doubles every round trip (section 7.3.1) until it holds the path's BDP, with no loss and
    no queue; the rounds before the pipe is full deliver the window, short of the BDP;
  - after that it delivers at the bottleneck's rate to the end of the run;
  - each full packet carries the application bytes the draw's best run put in one (the harness
    counts the bottleneck's capacity in IP bytes and goodput in application bytes).

No loss, no queue to drain and a perfect doubling make it an upper bound for a flow whose slow
start doubles (NewReno, CUBIC, `discern`): where the ceiling is below a goal, such a flow cannot
meet it. A start that grows faster can pass it, as BBR's does (a pacing gain of 2.89: up to 2.89
times the rate a round); the last column counts the paths where a controller did. A trace's
capacity is its mean over one period. The rows then show each controller's efficiency over that
ceiling.

    scripts/efficiency_ceiling.py --path-seed 70041          # a board of 200 paths, 4 controllers
    scripts/efficiency_ceiling.py --path-seed 70041 --print  # runs, prints, writes nothing
    scripts/efficiency_ceiling.py --path-seed 70041 --reuse  # re-tabulates out/efficiency-ceiling
"""

import csv
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_eval import (  # noqa: E402
    BINARY, ROOT, RUN_DIR, draw_arguments, quantile, replace_between, run)

MARKER = "efficiency-ceiling"
# The goal the issue sets on the board's efficiency at the 10th percentile.
GOAL_P10 = 0.85
# Bytes of a full packet at the bottleneck (the IP MTU), as the board lays paths out.
PACKET_BYTES = 1500
# quinn's initial window, in full packets (RFC 9002 section 7.2: 14720 bytes).
INITIAL_PACKETS = 10


def ideal_lost_seconds(rate_bytes, rtt_s):
    """Seconds of the bottleneck's rate an ideal flow leaves unused: the handshake's round trip,
    and what a doubling window from the initial one sends short of the BDP in the rounds before
    it holds it."""
    bdp = rate_bytes * rtt_s
    window, short = INITIAL_PACKETS * PACKET_BYTES, 0.0
    while window < bdp:
        short += bdp - window
        window *= 2
    return rtt_s + short / rate_bytes


def ceiling(row, payload_share):
    rate_bytes = float(row["capacity_mbit"]) * 1e6 / 8
    run_s = float(row["duration_s"])
    lost = ideal_lost_seconds(rate_bytes, float(row["rtt_ms"]) / 1000)
    return payload_share * max(0.0, 1 - lost / run_s)


def payload_share(board):
    """Application bytes a full packet carries, over the packet: the most any run alone on the
    board put in its delivered packets on average (small packets and retransmissions only lower
    a run's average)."""
    best = 0.0
    for d in (board / "runs").iterdir():
        if not RUN_DIR.match(d.name) or not (d / "summary.json").exists():
            continue
        flows = json.loads((d / "summary.json").read_text())["flows"]
        if len(flows) == 1 and flows[0]["packets_delivered"] > 0:
            best = max(best, flows[0]["bytes_delivered"] / flows[0]["packets_delivered"])
    if best == 0.0:
        sys.exit(f"{board}/runs: no run alone delivered a packet; was the board run?")
    return best / PACKET_BYTES


def row(label, values, above=""):
    below = sum(v < GOAL_P10 for v in values)
    return (f"| {label} | {len(values)} | {statistics.mean(values):.2f} | "
            f"{quantile(values, 0.1):.2f} | {quantile(values, 0.5):.2f} | {below} | {above} |")


def table(draw, rows, controllers, share):
    alone = [r for r in rows if r["efficiency"]]
    by_path = {}
    for r in alone:
        by_path.setdefault(r["path"], {})[r["controller"]] = r
    paths = [p for p, by in by_path.items() if all(c in by for c in controllers)]
    ceilings = {p: ceiling(by_path[p][controllers[0]], share) for p in paths}
    lines = [
        f"Seed {draw['path_seed']}, {draw['paths']} paths; {len(paths)} where the flow runs alone. "
        f"A full packet carries {share * PACKET_BYTES:.0f} application bytes of "
        f"{PACKET_BYTES} ({share:.3f}).",
        "",
        f"| row | paths | mean | p10 | median | paths below {GOAL_P10} | paths above 1 |",
        "|---|---|---|---|---|---|---|",
        row("the ceiling: a doubling start, then the bottleneck's rate",
            list(ceilings.values())),
    ]
    for c in controllers:
        eff = [float(by_path[p][c]["efficiency"]) for p in paths]
        lines.append(row(f"`{c}`: efficiency (the board's figure)", eff))
    for c in controllers:
        over = [float(by_path[p][c]["efficiency"]) / ceilings[p] for p in paths if ceilings[p] > 0]
        lines.append(row(f"`{c}`: efficiency / the ceiling", over, sum(v > 1 for v in over)))
    lowest = sorted(paths, key=lambda p: ceilings[p])[:5]
    lines += ["", "The paths with the lowest ceilings:", ""]
    for p in lowest:
        r = by_path[p][controllers[0]]
        lines.append(
            f"- path {p}: {ceilings[p]:.2f}; {float(r['capacity_mbit']):g} Mbit/s, "
            f"{float(r['rtt_ms']):g} ms RTT, a run of {float(r['duration_s']):g} s "
            f"(the handshake and a doubling start take "
            f"{ideal_lost_seconds(float(r['capacity_mbit']) * 1e6 / 8, float(r['rtt_ms']) / 1000):.2f} s)")
    lines += ["", f"Written by `scripts/efficiency_ceiling.py --paths {draw['paths']} --path-seed "
              f"{draw['path_seed']} --controller {','.join(controllers)}`."]
    return "\n".join(lines)


def main():
    a = draw_arguments(__doc__, "efficiency-ceiling", "discern,quinn-bbr,noq-bbr3,newreno").parse_args()
    controllers = [c for c in a.controller.split(",") if c]
    if not controllers:
        sys.exit(f"--controller {a.controller!r}: name one or more controllers")
    if not a.reuse:
        if not BINARY.exists():
            sys.exit(f"{BINARY} not found: cargo build --release -p quinn-discern-harness")
        shutil.rmtree(a.out, ignore_errors=True)
        run([BINARY, "score", "--paths", str(a.paths), "--path-seed", str(a.path_seed),
             "--controller", ",".join(controllers), "--jobs", str(a.jobs), "--out", a.out],
            stdout=subprocess.DEVNULL)
    elif not (a.out / "paths.csv").exists():
        sys.exit(f"--reuse: {a.out}/paths.csv not found; run without --reuse first")
    draw = json.loads((a.out / "paths.json").read_text())["draw"]
    if a.reuse and (draw["path_seed"], draw["paths"]) != (a.path_seed, a.paths):
        sys.exit(f"--reuse: {a.out} holds {draw['paths']} paths of seed {draw['path_seed']}, not "
                 f"{a.paths} of seed {a.path_seed}; give those, or run without --reuse")
    with open(a.out / "paths.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    missing = sorted(set(controllers) - {r["controller"] for r in rows})
    if missing:
        sys.exit(f"{a.out}/paths.csv has no runs of {', '.join(missing)}; run without --reuse, "
                 "or name the controllers it has (--controller)")
    text = table(draw, rows, controllers, payload_share(a.out))
    print(text)
    if not a.print:
        replace_between(ROOT / "docs" / "RESULTS.md", MARKER, text)


if __name__ == "__main__":
    main()
