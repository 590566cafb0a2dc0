#!/usr/bin/env python3
"""Linux's own qdiscs against the simulator and the user-space engine: the scenarios of
harness/tests/kernel/ (netem loss behind tbf, CoDel, PIE and FQ-CoDel with and without ECN, a
policer, a kernel TCP CUBIC peer) on seeds 1 to 3, or 1 to 10 for the rows with random loss
(whose goodput turns on whether a channel loss ends slow start before the queue overflows, a
draw that three seeds settle poorly), each

  simulator     `discern run FILE --runs N` (a kernel TCP flow has no simulated form: quinn's
                own CUBIC stands in for it);
  user-space    `discern run FILE --link netns --runs N --jobs 1` on this host (root), whose
                kernel lacks sch_netem, so the runner picks the user-space engine; the table
                names the engine each run got;
  Linux qdiscs  the same inside a VM whose kernel has sch_netem, codel, pie, fq_codel and
                act_police (scripts/kernel-vm.sh, one boot per number of seeds).

Goodput is counted over each run's second half, from FROM_S on: under software emulation the TLS
handshake takes about half a second, so the VM's slow start and the repair of its losses come
later than the simulator's. A receiver counts bytes in order, and a loss holds every byte behind
it until its repair, so the delivered count is averaged over EDGE_S at each end of the window
rather than read at one instant, as harness/tests/kernel_qdiscs.rs does too.

A second table shows each engine's start-up on the drop-tail rows: the sender's smoothed RTT
when its first data was acknowledged (the handshake's sample, under emulation slowed by the TLS
computations) and its window at its first reduction, seed by seed.
The first table goes between the `kernel-qdiscs` markers of README.md and docs/RESULTS.md,
the second between the `kernel-startup` markers of docs/RESULTS.md.

    scripts/kernel_eval.py                       # all three columns (about 15 minutes)
    scripts/kernel_eval.py --reuse --print       # re-tabulate out/kernel-eval, write nothing
    scripts/kernel_eval.py --discern target/debug/discern
"""

import argparse
import csv
import functools
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_eval import replace_between  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "harness" / "tests" / "kernel"
SEEDS = 3
LOSS_SEEDS = 10
FROM_S = 2.0
EDGE_S = 0.25
CAUSES = ("drop_tail", "codel", "pie", "fq_codel", "police")
MARKER = "kernel-qdiscs"
STARTUP_MARKER = "kernel-startup"


def run(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), file=sys.stderr)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def sim_args(file):
    return ["--set", "flow.1.controller=quinn-cubic"] if '"tcp-cubic"' in file.read_text() else []


@functools.cache
def seeds(file):
    """The seeds a scenario runs on: 1 to 10 with random loss, 1 to 3 otherwise (the file is
    read once)."""
    lossy = re.search(r"^loss = ", file.read_text(), re.M)
    return range(1, (LOSS_SEEDS if lossy else SEEDS) + 1)


def run_all(binary, out, files):
    for f in files:
        run([binary, "run", f, "--runs", len(seeds(f)), "--out", out / "sim" / f.stem]
            + sim_args(f),
            stdout=subprocess.DEVNULL)
    if os.geteuid() == 0:
        for f in files:
            run([binary, "run", f, "--link", "netns", "--runs", len(seeds(f)), "--jobs", 1,
                 "--out", out / "user" / f.stem], stdout=subprocess.DEVNULL)
    # One boot per number of seeds, since the VM's runs share one `--runs`.
    for n in sorted({len(seeds(f)) for f in files}):
        group = [f for f in files if len(seeds(f)) == n]
        run(["bash", ROOT / "scripts" / "kernel-vm.sh", "--discern", binary,
             "--out", out / "kernel"] + group + ["--", "--runs", n, "--jobs", 1],
            stdout=subprocess.DEVNULL)


def mean_over(readings, start, stop):
    """The time-weighted mean over [start, stop] of the count the (time, count) readings step
    through, each holding until the next."""
    held, since, area = 0, start, 0.0
    for at, count in readings:
        if at > start:
            if at >= stop:
                break
            area += held * (at - since)
            since = at
        held = max(held, count)
    return (area + held * (stop - since)) / (stop - start)


def figures(run_dir):
    """One run's goodput after FROM_S (bit/s), drops by cause, channel drops, CE marks, engine."""
    s = json.loads((run_dir / "summary.json").read_text())
    rows = list(csv.DictReader(open(run_dir / "flows.csv")))
    end = s["duration_s"]
    goodput = 0.0
    for f in s["flows"]:
        readings = [(float(r["t_s"]), int(r["delivered_bytes"])) for r in rows
                    if int(r["flow"]) == f["flow"]]
        first = mean_over(readings, FROM_S, FROM_S + EDGE_S)
        last = mean_over(readings, end - EDGE_S, end)
        goodput += (last - first) * 8 / (end - FROM_S - EDGE_S)
    link = s["links"][0]
    by = link.get("queue_drops") or {}
    return {
        "goodput": goodput,
        "drops": {c: by.get(c, 0) for c in CAUSES},
        "channel": s["drops"]["channel"],
        "ce": link["ce_marks"],
        "engine": link["engine"],
    }


def startup(run_dir):
    """Flow 0's start-up in one run: its smoothed RTT (s) when its first data was acknowledged,
    and its window (bytes) just before its first reduction, or None if it never reduced it."""
    with open(run_dir / "flows.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["flow"] == "0"]
    srtt = next(float(r["rtt_s"]) for r in rows if int(r["delivered_bytes"]) > 0)
    windows = [int(r["cwnd_bytes"]) for r in rows]
    cut = next((w for w, after in zip(windows, windows[1:]) if after < w), None)
    return srtt, cut


def plain_drop_tail(summary):
    """Whether a run's bottleneck is a plain drop-tail queue (no AQM, no policer)."""
    if not summary.exists():
        return False
    queue = json.loads(summary.read_text())["links"][0]["queue"]
    return queue.startswith("drop-tail") and "police" not in queue


def startup_table(out, files):
    """Each engine's start-up on the drop-tail rows, seed by seed."""
    lines = [
        "| scenario | engine | smoothed RTT at first delivery, ms (median) "
        "| window at first reduction, kB → drop-tail drops, seed by seed |",
        "|---|---|---|---|",
    ]
    for f in files:
        if not plain_drop_tail(out / "sim" / f.stem / "seed=1" / "summary.json"):
            continue
        for engine, label in (("sim", "simulator"), ("user", "user-space"), ("kernel", "Linux")):
            runs = [out / engine / f.stem / f"seed={s}" for s in seeds(f)]
            if not all((r / "flows.csv").exists() for r in runs):
                continue
            starts = [startup(r) for r in runs]
            drops = [figures(r)["drops"]["drop_tail"] for r in runs]
            per_seed = ", ".join(f"{'-' if w is None else round(w / 1000)}→{d}"
                                 for (_, w), d in zip(starts, drops))
            rtt = statistics.median(srtt for srtt, _ in starts) * 1000
            lines.append(f"| {f.stem} | {label} | {rtt:.0f} | {per_seed} |")
    lines += [
        "",
        "Flow 0 only (in `k-tcp-cubic`, the QUIC flow beside the TCP one). Same runs as the "
        "table above. Written by `scripts/kernel_eval.py`.",
    ]
    return "\n".join(lines)


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def column(out, file):
    """Means over the seeds of one engine's runs of one scenario, or None if it did not run."""
    runs = [out / file.stem / f"seed={s}" for s in seeds(file)]
    if not all((r / "summary.json").exists() for r in runs):
        return None
    figs = [figures(r) for r in runs]
    return {
        "goodput": mean([f["goodput"] for f in figs]),
        "goodput_per_seed": [f["goodput"] for f in figs],
        "drops": {c: mean([f["drops"][c] for f in figs]) for c in CAUSES},
        "drops_per_seed": {c: [f["drops"][c] for f in figs] for c in CAUSES},
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


# Within this share of the simulator's figure, or this many packets of a drop count (a few drops
# a run is a count that one packet more or less moves by a tenth), or within the noise of the two
# means (this many standard errors of their difference, from the seeds' spread), an engine agrees
# with it.
AGREE_SHARE = 0.10
AGREE_PACKETS = 3
AGREE_STANDARD_ERRORS = 2

# Why a figure that differs does, by the figure and the scenario's bottleneck: the sections of
# docs/RESULTS.md under the tables measure each of these.
WHY = {
    "goodput": "goodput turns on whether slow start overflows the queue (second table)",
    "drop_tail": "slow start's overflow: netem's own loss draws and the emulated handshake "
                 "(second table)",
    "drop_tail pie": "Linux's PIE holds back in start-up: de-randomized drops and its rate "
                     "estimator (below)",
    "drop_tail tcp": "Linux's CUBIC, unpaced, fills the queue while the QUIC handshake runs "
                     "(second table)",
    "pie": "Linux's rate estimator and de-randomized drops (below)",
}


def noise(xs, ys):
    """AGREE_STANDARD_ERRORS standard errors of the difference of the means of xs and ys."""
    var = lambda v: statistics.variance(v) / len(v) if len(v) > 1 else 0.0
    return AGREE_STANDARD_ERRORS * (var(xs) + var(ys)) ** 0.5


def disagreements(sim, other, file):
    """What of `other`'s means lies outside the agreement band around the simulator's, each
    with the reason the results measure for it (or none found)."""
    kind = "pie" if "pie" in file.stem else "tcp" if "tcp" in file.stem else None
    out = []
    gap = abs(other["goodput"] - sim["goodput"])
    if gap > max(AGREE_SHARE * sim["goodput"],
                 noise(sim["goodput_per_seed"], other["goodput_per_seed"])):
        out.append(("goodput", WHY["goodput"]))
    for cause in CAUSES:
        a, b = sim["drops"][cause], other["drops"][cause]
        spread = noise(sim["drops_per_seed"][cause], other["drops_per_seed"][cause])
        if abs(b - a) > max(AGREE_SHARE * a, AGREE_PACKETS, spread):
            key = f"{cause} {kind}" if cause == "drop_tail" and kind else cause
            out.append((f"{cause} drops", WHY.get(key, "not explained")))
    return out


def agreement_text(sim, kern, file):
    if not (sim and kern):
        return "-"
    found = disagreements(sim, kern, file)
    if not found:
        return "yes"
    return "no: " + "; ".join(f"{what}, {why}" for what, why in found)


def table(out, files):
    cal = json.loads((out / "kernel" / "calibration.json").read_text())
    lines = [
        "| scenario | goodput Mbit/s: simulator / user-space / Linux | Linux ÷ simulator "
        "| drops and marks per run: simulator | user-space | Linux | Linux agrees |",
        "|---|---|---|---|---|---|---|",
    ]
    engines = set()
    for f in files:
        sim, user, kern = (column(out / e, f) for e in ("sim", "user", "kernel"))
        if user:
            engines.add(user["engine"])
        g = lambda c: f"{c['goodput'] / 1e6:.2f}" if c else "-"
        ratio = f"{kern['goodput'] / sim['goodput']:.2f}" if kern and sim else "-"
        lines.append(f"| {f.stem} | {g(sim)} / {g(user)} / {g(kern)} | {ratio} | "
                     f"{drops_text(sim)} | {drops_text(user)} | {drops_text(kern)} | "
                     f"{agreement_text(sim, kern, f)} |")
    lines += [
        "",
        f"Seeds 1 to {LOSS_SEEDS} on the rows with channel losses, 1 to {SEEDS} on the others "
        "(means over them, but drop-tail counts seed by seed: whether slow start overflowed "
        "the queue); 4 s runs at 4 Mbit/s, 20 ms, "
        f"goodput from {FROM_S:g} s on (the delivered count averaged over {EDGE_S:g} s at each "
        "end); drops are the bottleneck's forward queue drops by who dropped them. The last "
        "column says whether Linux's goodput and each drop count lie "
        f"within {AGREE_SHARE * 100:.0f} % of the simulator's mean (or {AGREE_PACKETS} packets "
        f"of a count, or {AGREE_STANDARD_ERRORS} standard errors of the two means' difference, "
        "from the seeds' spread), and where not, why. User-space column: "
        + (", ".join(sorted(engines)) if engines else "not run (needs root)")
        + f". Linux column: Debian's cloud kernel under {cal['accel'].upper()}, whose "
        f"calibration flow carried {cal['share']:.1%} of {cal['rate_bps'] / 1e6:g} Mbit/s "
        f"after its first second (the simulator {cal['simulator_share']:.1%}). "
        "Written by `scripts/kernel_eval.py`.",
    ]
    return "\n".join(lines)


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
    text, startup = table(a.out, files), startup_table(a.out, files)
    print(text + "\n\n" + startup)
    if not a.print:
        for doc in (ROOT / "README.md", ROOT / "docs" / "RESULTS.md"):
            replace_between(doc, MARKER, text)
        replace_between(ROOT / "docs" / "RESULTS.md", STARTUP_MARKER, startup)


if __name__ == "__main__":
    main()
