#!/usr/bin/env python3
"""Linux's own qdiscs against the simulator and the user-space engine: the scenarios of
harness/tests/kernel/ (netem loss behind tbf, CoDel, PIE and FQ-CoDel with and without ECN, a
policer, a kernel TCP CUBIC peer) on three seeds (1, 2, 3), each

  simulator     `discern run FILE --runs 3` (a kernel TCP flow has no simulated form: quinn's
                own CUBIC stands in for it);
  user-space    `discern run FILE --link netns --runs 3 --jobs 1` on this host (root), whose
                kernel lacks sch_netem, so the runner picks the user-space engine; the table
                names the engine each run got;
  Linux qdiscs  the same inside a VM whose kernel has sch_netem, codel, pie, fq_codel and
                act_police (scripts/kernel-vm.sh, one boot for all runs).

Goodput is counted from the first second on (under software emulation the TLS handshake takes
about half a second). The table goes between the `kernel-qdiscs` markers of README.md and
docs/RESULTS.md.

    scripts/kernel_eval.py                       # all three columns (about 12 minutes)
    scripts/kernel_eval.py --reuse --print       # re-tabulate out/kernel-eval, write nothing
    scripts/kernel_eval.py --discern target/debug/discern
"""

import argparse
import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "harness" / "tests" / "kernel"
SEEDS = (1, 2, 3)
FROM_S = 1.0
CAUSES = ("drop_tail", "codel", "pie", "fq_codel", "police")
MARKER = "kernel-qdiscs"


def run(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), file=sys.stderr)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def sim_args(file):
    return ["--set", "flow.1.controller=quinn-cubic"] if '"tcp-cubic"' in file.read_text() else []


def run_all(binary, out, files):
    for f in files:
        run([binary, "run", f, "--runs", len(SEEDS), "--out", out / "sim" / f.stem] + sim_args(f),
            stdout=subprocess.DEVNULL)
    if os.geteuid() == 0:
        for f in files:
            run([binary, "run", f, "--link", "netns", "--runs", len(SEEDS), "--jobs", 1,
                 "--out", out / "user" / f.stem], stdout=subprocess.DEVNULL)
    run(["bash", ROOT / "scripts" / "kernel-vm.sh", "--discern", binary, "--out", out / "kernel"]
        + files + ["--", "--runs", len(SEEDS), "--jobs", 1], stdout=subprocess.DEVNULL)


def figures(run_dir):
    """One run's goodput after FROM_S (bit/s), drops by cause, channel drops, CE marks, engine."""
    s = json.loads((run_dir / "summary.json").read_text())
    rows = list(csv.DictReader(open(run_dir / "flows.csv")))
    goodput = 0.0
    for f in s["flows"]:
        before = [int(r["delivered_bytes"]) for r in rows
                  if int(r["flow"]) == f["flow"] and float(r["t_s"]) <= FROM_S]
        goodput += (f["bytes_delivered"] - (before[-1] if before else 0)) * 8 / (s["duration_s"] - FROM_S)
    link = s["links"][0]
    by = link.get("queue_drops") or {}
    return {
        "goodput": goodput,
        "drops": {c: by.get(c, 0) for c in CAUSES},
        "channel": s["drops"]["channel"],
        "ce": link["ce_marks"],
        "engine": link["engine"],
    }


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def column(out, name):
    """Means over the seeds of one engine's runs of one scenario, or None if it did not run."""
    runs = [out / name / f"seed={s}" for s in SEEDS]
    if not all((r / "summary.json").exists() for r in runs):
        return None
    figs = [figures(r) for r in runs]
    return {
        "goodput": mean([f["goodput"] for f in figs]),
        "drops": {c: mean([f["drops"][c] for f in figs]) for c in CAUSES},
        "drop_tail_per_seed": [f["drops"]["drop_tail"] for f in figs],
        "channel": mean([f["channel"] for f in figs]),
        "ce": mean([f["ce"] for f in figs]),
        "engine": figs[0]["engine"],
    }


def drops_text(c):
    if c is None:
        return "-"
    # A drop-tail count is all or nothing per run (whether slow start overflowed the queue), so
    # each seed's is given rather than a mean.
    parts = [("/".join(str(n) for n in c["drop_tail_per_seed"]) if k == "drop_tail"
              else f"{c['drops'][k]:.0f}") + f" {k}"
             for k in CAUSES if c["drops"][k] > 0]
    if c["channel"] > 0:
        parts.append(f"{c['channel']:.0f} channel")
    if c["ce"] > 0:
        parts.append(f"{c['ce']:.0f} CE")
    return ", ".join(parts) or "0"


def table(out, files):
    cal = json.loads((out / "kernel" / "calibration.json").read_text())
    lines = [
        "| scenario | goodput Mbit/s: simulator / user-space / Linux | Linux ÷ simulator "
        "| drops and marks per run: simulator | user-space | Linux |",
        "|---|---|---|---|---|---|",
    ]
    engines = set()
    for f in files:
        sim, user, kern = (column(out / e, f.stem) for e in ("sim", "user", "kernel"))
        if user:
            engines.add(user["engine"])
        g = lambda c: f"{c['goodput'] / 1e6:.2f}" if c else "-"
        ratio = f"{kern['goodput'] / sim['goodput']:.2f}" if kern and sim else "-"
        lines.append(f"| {f.stem} | {g(sim)} / {g(user)} / {g(kern)} | {ratio} | "
                     f"{drops_text(sim)} | {drops_text(user)} | {drops_text(kern)} |")
    lines += [
        "",
        f"Seeds {', '.join(map(str, SEEDS))} (means over them, but drop-tail counts seed by "
        "seed: whether slow start overflowed the queue); 4 s runs at 4 Mbit/s, 20 ms, "
        f"goodput from {FROM_S:g} s on; drops are the bottleneck's forward queue drops by who "
        "dropped them. User-space column: "
        + (", ".join(sorted(engines)) if engines else "not run (needs root)")
        + f". Linux column: Debian's cloud kernel under {cal['accel'].upper()}, whose "
        f"calibration flow carried {cal['share']:.1%} of {cal['rate_bps'] / 1e6:g} Mbit/s "
        f"after its first second (the simulator {cal['simulator_share']:.1%}). "
        "Written by `scripts/kernel_eval.py`.",
    ]
    return "\n".join(lines)


def write_between_markers(path, text):
    body = path.read_text()
    pattern = re.compile(rf"(<!-- BEGIN {MARKER} -->\n).*?(<!-- END {MARKER} -->)", re.S)
    if not pattern.search(body):
        sys.exit(f"{path}: no <!-- BEGIN {MARKER} --> ... <!-- END {MARKER} --> markers")
    path.write_text(pattern.sub(lambda m: m.group(1) + text + "\n" + m.group(2), body))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--discern", default=ROOT / "target" / "release" / "discern", type=Path)
    p.add_argument("--out", default=ROOT / "out" / "kernel-eval", type=Path)
    p.add_argument("--reuse", action="store_true", help="tabulate an earlier run's outputs")
    p.add_argument("--print", action="store_true", help="print the table, write nothing")
    a = p.parse_args()
    files = sorted(SCENARIOS.glob("*.toml"))
    if not a.reuse:
        if not a.discern.exists():
            sys.exit(f"{a.discern} not found: cargo build --release -p quinn-discern-harness, "
                     "or pass --discern BIN")
        run_all(a.discern.resolve(), a.out.resolve(), files)
    text = table(a.out, files)
    print(text)
    if not a.print:
        for doc in (ROOT / "README.md", ROOT / "docs" / "RESULTS.md"):
            write_between_markers(doc, text)


if __name__ == "__main__":
    main()
