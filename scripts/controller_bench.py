#!/usr/bin/env python3
"""The controller benchmark: every goal of the `discern` controller, measured beside its peers.

Runs the scenarios in scenarios/bench/ through `discern sweep` on the simulator, N seeds per point
(the same seeds for every controller), and reports each figure as a mean with its 95 % confidence
interval (Student's t). With --write it writes docs/results/controller-bench.csv, the table
between the `controller-bench` markers of docs/RESULTS.md, and docs/results/discern-goodput-loss.png
(one flow, 20 Mbit/s, 60 ms, goodput against the random loss rate).

    scripts/controller_bench.py                 # 10 seeds, every controller (about 15 min on 2 cores)
    scripts/controller_bench.py --seeds 3 --controllers discern,newreno,quinn-bbr

Figures (per controller):
  efficiency   random-loss classes: goodput / (the same controller's lossless goodput on the same
               path x (1 - p)), per seed against the mean of the lossless runs
  vs BBR       random-loss classes: goodput / quinn-bbr's goodput, paired by seed
  rnd acc      random-loss classes: channel losses called random / channel losses judged
  share        congestion only, against one newreno (or quinn-cubic) flow: own / (own + peer)
  harm         the peer's goodput against this controller / against a flow of its own kind
  jain         four flows of the controller: Jain's fairness index
  cong acc     four flows: queue losses called congestion / queue losses judged
  mixed        0.5 % random loss, against one newreno flow: newreno keeps (vs newreno-vs-newreno)
               and own / newreno's goodput
"""

import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "scenarios" / "bench"
CONTROLLERS = [
    "discern", "quinn-bbr", "quinn-cubic", "newreno", "wnewreno", "modified-sack", "veno",
    "westwood",
]
# Random-loss classes: scenario, mean loss rate.
RANDOM = [
    ("random-10M-40ms", 0.01),
    ("random-20M-60ms", 0.005),
    ("random-100M-20ms", 0.001),
    ("random-2M-200ms", 0.03),
    ("random-ge-20M-60ms", 0.01),
]
# Two-sided 95 % quantiles of Student's t, by degrees of freedom.
T95 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
       2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    if df <= 0:
        return float("nan")
    return T95[df] if df < len(T95) else 1.96


def stats(values):
    """(n, mean, sd, half-width of the 95 % confidence interval)."""
    values = [v for v in values if v is not None and not math.isnan(v)]
    n = len(values)
    if n == 0:
        return (0, float("nan"), float("nan"), float("nan"))
    mean = sum(values) / n
    if n == 1:
        return (1, mean, float("nan"), float("nan"))
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return (n, mean, sd, t95(n - 1) * sd / math.sqrt(n))


def sweep(binary, scenario, out, seeds, controllers, extra=()):
    """Runs one sweep; returns {(controller of flow 0, seed): summary}."""
    cmd = [binary, "sweep", str(BENCH / f"{scenario}.toml"), "--out", str(out),
           "--vary", "seed=" + ",".join(map(str, seeds)),
           "--vary", "flow.0.controller=" + ",".join(controllers), *extra]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    runs = {}
    for summary in sorted((out / "runs").glob("*/summary.json")):
        s = json.loads(summary.read_text())
        runs[(s["flows"][0]["controller"], s["seed"])] = s
    return runs


def goodputs(summary):
    return [f["goodput_bps"] / 1e6 for f in summary["flows"]]


def fraction(hit, miss):
    return hit / (hit + miss) if hit + miss else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--controllers", default=",".join(CONTROLLERS))
    ap.add_argument("--out", default=str(ROOT / "out" / "controller-bench"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--write", action="store_true", help="update docs/RESULTS.md and the CSV")
    args = ap.parse_args()
    controllers = args.controllers.split(",")
    if "quinn-bbr" not in controllers:
        controllers.append("quinn-bbr")
    seeds = list(range(1, args.seeds + 1))
    binary = str(ROOT / "target" / "release" / "discern")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "discern-harness"], cwd=ROOT, check=True)
    out = Path(args.out)
    jobs = ["--jobs", str(args.jobs)]
    rows = {c: {} for c in controllers}

    def put(controller, figure, values):
        rows[controller][figure] = stats(values)

    for scenario, p in RANDOM:
        lossy = sweep(binary, scenario, out / scenario, seeds, controllers, jobs)
        clean = sweep(binary, scenario, out / f"{scenario}-lossless", seeds[:3], controllers,
                      ["--set", "link.bottleneck.loss.model=none", *jobs])
        for c in controllers:
            reference = stats([goodputs(clean[(c, s)])[0] for s in seeds[:3] if (c, s) in clean])[1]
            put(c, f"eff {scenario}", [goodputs(lossy[(c, s)])[0] / (reference * (1 - p)) for s in seeds])
            put(c, f"vsbbr {scenario}", [goodputs(lossy[(c, s)])[0] / goodputs(lossy[("quinn-bbr", s)])[0] for s in seeds])
            acc = [lossy[(c, s)]["verdict_accuracy"] for s in seeds]
            put(c, f"rndacc {scenario}", [fraction(a["random_as_random"], a["random_as_congestion"]) for a in acc])

    for peer in ["newreno", "quinn-cubic"]:
        runs = sweep(binary, "congestion-pair", out / f"congestion-{peer}", seeds, sorted(set(controllers) | {peer}),
                     ["--set", f"flow.1.controller={peer}", *jobs])
        own_kind = {s: goodputs(runs[(peer, s)])[1] for s in seeds}
        for c in controllers:
            put(c, f"share {peer}", [goodputs(runs[(c, s)])[0] / sum(goodputs(runs[(c, s)])) for s in seeds])
            put(c, f"harm {peer}", [1 - goodputs(runs[(c, s)])[1] / own_kind[s] for s in seeds])

    four = sweep(binary, "congestion-four", out / "congestion-four", seeds, controllers, jobs)
    for c in controllers:
        jain = []
        for s in seeds:
            g = goodputs(four[(c, s)])
            jain.append(sum(g) ** 2 / (len(g) * sum(x * x for x in g)))
        put(c, "jain", jain)
        acc = [four[(c, s)]["verdict_accuracy"] for s in seeds]
        put(c, "congacc", [fraction(a["congestion_as_congestion"], a["congestion_as_random"]) for a in acc])

    mixed = sweep(binary, "mixed-pair", out / "mixed", seeds, sorted(set(controllers) | {"newreno"}), jobs)
    for c in controllers:
        put(c, "mixed keeps", [goodputs(mixed[(c, s)])[1] / goodputs(mixed[("newreno", s)])[1] for s in seeds])
        put(c, "mixed ratio", [goodputs(mixed[(c, s)])[0] / goodputs(mixed[(c, s)])[1] for s in seeds])

    figures = list(next(iter(rows.values())).keys())
    csv_path = ROOT / "docs" / "results" / "controller-bench.csv"
    table = render(rows, controllers, len(seeds))
    print(table)
    if args.write:
        with open(csv_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["controller", "figure", "n", "mean", "sd", "ci95"])
            for c in controllers:
                for fig in figures:
                    n, mean, sd, ci = rows[c][fig]
                    w.writerow([c, fig, n, f"{mean:.4f}", f"{sd:.4f}", f"{ci:.4f}"])
        replace_between(ROOT / "docs" / "RESULTS.md", "controller-bench", table)
        figure = out / "goodput-loss"
        subprocess.run([binary, "sweep", str(BENCH / "random-20M-60ms.toml"), "--out", str(figure),
                        "--vary", "link.bottleneck.loss.rate=0,0.001,0.003,0.01,0.03",
                        "--controller", ",".join(controllers), *jobs], check=True, stdout=subprocess.DEVNULL)
        shutil.copy(figure / "goodput.png", ROOT / "docs" / "results" / "discern-goodput-loss.png")
        print(f"wrote {csv_path}, docs/RESULTS.md and docs/results/discern-goodput-loss.png", file=sys.stderr)


def cell(stat, percent=False):
    n, mean, _, ci = stat
    if n == 0:
        return "n/a"
    scale = 100 if percent else 1
    digits = 1 if percent else 2
    text = f"{mean * scale:.{digits}f}"
    if not math.isnan(ci):
        text += f" ± {ci * scale:.{digits}f}"
    return text


def render(rows, controllers, n):
    lines = [f"n = {n} seeds per point; mean ± 95 % CI (Student's t).", ""]
    classes = [s for s, _ in RANDOM]
    short = {s: s.replace("random-", "") for s in classes}
    lines.append("Random loss, one flow. Efficiency = goodput / (lossless goodput x (1 - p)), in %; "
                 "in brackets, goodput / quinn-bbr's (same seed).")
    lines.append("")
    lines.append("| controller | " + " | ".join(short[s] for s in classes) + " |")
    lines.append("|---|" + "---|" * len(classes))
    for c in controllers:
        cells = [f"{cell(rows[c]['eff ' + s], True)} ({cell(rows[c]['vsbbr ' + s])})" for s in classes]
        lines.append(f"| `{c}` | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Verdicts on random-loss paths (channel losses called random, %):")
    lines.append("")
    lines.append("| controller | " + " | ".join(short[s] for s in classes) + " |")
    lines.append("|---|" + "---|" * len(classes))
    for c in controllers:
        lines.append(f"| `{c}` | " + " | ".join(cell(rows[c]['rndacc ' + s], True) for s in classes) + " |")
    lines.append("")
    lines.append("Congestion only (10 Mbit/s, 40 ms, 1 BDP drop-tail, 60 s) and mixed (the same with 0.5 % "
                 "random loss). Share: own / (own + peer). Harm: how much less the peer gets than "
                 "against its own kind, in %. Jain and congestion verdicts: four flows of the controller. "
                 "Mixed: what newreno keeps against it (vs against newreno), and own / newreno's goodput.")
    lines.append("")
    lines.append("| controller | share vs newreno | harm to newreno % | share vs cubic | harm to cubic % "
                 "| Jain, 4 flows | queue losses called congestion % | mixed: newreno keeps | mixed: own / newreno |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for c in controllers:
        r = rows[c]
        lines.append(f"| `{c}` | {cell(r['share newreno'])} | {cell(r['harm newreno'], True)} | "
                     f"{cell(r['share quinn-cubic'])} | {cell(r['harm quinn-cubic'], True)} | {cell(r['jain'])} | "
                     f"{cell(r['congacc'], True)} | {cell(r['mixed keeps'])} | {cell(r['mixed ratio'])} |")
    return "\n".join(lines)


def replace_between(path, marker, text):
    begin, end = f"<!-- BEGIN {marker} -->", f"<!-- END {marker} -->"
    doc = path.read_text()
    if begin not in doc:
        doc = doc.rstrip("\n") + f"\n\n{begin}\n{end}\n"
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{begin}\n{text}\n{end}{tail}")


if __name__ == "__main__":
    main()
