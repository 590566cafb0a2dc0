#!/usr/bin/env python3
"""Writes docs/RESULTS.md's section on receivers (between its `receivers` markers): the same six
controllers on one random-loss path and one congestion path, with three receivers:

  quinn        the simulator, quinn's own ACK policy (every second packet, 25 ms timer)
  quinn N=10   the simulator, every receiver asked through ACK_FREQUENCY to acknowledge every
               10th packet (`ack_eliciting_threshold = 10`)
  s2n-quic     network namespaces (root), s2n-quic receivers (`receiver = "s2n-quic"`), which
               acknowledge every 10th packet on their own

Each cell is the mean and 95 % confidence interval over the seeds: 10 in the simulator, fewer in
namespaces (`--netns-runs`, real time: 30 s a controller and seed). The ACK-delay column is the
share of ACK frames whose delay the sender recovered within 100 us (simulator, against its
ground truth) or 1 ms (namespaces, against what s2n-quic says it encoded). "Called random" and
"called congestion" are shares of the channel and queue losses of the ground truth in the
simulator, over the run (on the congestion path the newreno flow's own verdicts, all
congestion, count too, as in the scoreboard), and of flow 0's loss events in namespaces, which
have no ground truth.

    sudo scripts/receivers_eval.py                    # about 5 minutes on 2 cores
    scripts/receivers_eval.py --netns-runs 0 --print  # simulator receivers only, show
"""

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_eval import replace_between  # noqa: E402
from results_tables import Est  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "discern"
CONTROLLERS = ["discern", "quinn-cubic", "quinn-bbr", "newreno", "modified-sack", "wnewreno"]

RANDOM_PATH = """name = "receivers-random"
description = "one flow, 20 Mbit/s, 60 ms RTT, 0.5 % Bernoulli loss, queue 150 (1.5 BDP)"
duration = "10s"
seed = 1

[[link]]
name = "bottleneck"
rate = "20Mbit"
delay = "30ms"
queue = 150
loss = { model = "bernoulli", rate = 0.005 }

[[flow]]
controller = "discern"
path = ["bottleneck"]
"""

CONGESTION_PATH = """name = "receivers-congestion"
description = "against one newreno flow, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail queue, no random loss"
duration = "20s"
seed = 1

[[link]]
name = "bottleneck"
rate = "10Mbit"
delay = "20ms"
queue = 34

[[flow]]
controller = "discern"
path = ["bottleneck"]

[[flow]]
controller = "newreno"
path = ["bottleneck"]
"""

# Per receiver: the runner, the keys every flow gets, and the ACK-delay figure and its tolerance.
RECEIVERS = [
    ("quinn", "sim", [], ("delay_signals", "ack_delay_within_100us"), "100 us"),
    ("quinn N=10", "sim", ["ack_eliciting_threshold=10"],
     ("delay_signals", "ack_delay_within_100us"), "100 us"),
    ("s2n-quic", "netns", ["receiver=s2n-quic"], ("receiver_acks", "ack_delay_within_1ms"),
     "1 ms"),
]


def sweep(scenario, link, flow_keys, runs, out):
    """Runs every controller as flow 0 over `runs` seeds; returns each run's summary by
    controller."""
    cmd = [str(BINARY), "sweep", str(scenario), "--link", link, "--runs", str(runs),
           "--vary", "flow.0.controller=" + ",".join(CONTROLLERS), "--out", str(out)]
    flows = 2 if "congestion" in scenario.name else 1
    for key in flow_keys:
        for flow in range(flows):
            cmd += ["--set", f"flow.{flow}.{key}"]
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    by_controller = {c: [] for c in CONTROLLERS}
    for summary in sorted(out.glob("runs/*/summary.json")):
        run = json.loads(summary.read_text())
        by_controller[run["flows"][0]["controller"]].append(run)
    return by_controller


def estimate(values, digits=2):
    """`mean ± half-width of its 95 % interval` of the values that exist, or `-`."""
    return Est(v for v in values if v is not None and not math.isnan(v)).fmt(digits)


def called(run, verdict):
    """The share of flow 0's losses its controller called `verdict`: of the losses the ground
    truth says were of that kind, in the simulator; of its loss events, in namespaces, which
    have no ground truth (on these paths nearly every loss is of the one kind)."""
    truth = run.get("verdict_accuracy")
    if truth:
        right = truth[f"{verdict}_as_{verdict}"]
        other = "congestion" if verdict == "random" else "random"
        wrong = truth[f"{verdict}_as_{other}"]
        return right / (right + wrong) if right + wrong else None
    verdicts = run["flows"][0]["verdicts"]
    events = verdicts["random"] + verdicts["congestion"]
    return verdicts[verdict] / events if events else None


def ack_delay(runs, figure):
    block, key = figure
    return estimate([r["flows"][0].get(block, {}).get(key) if block == "receiver_acks"
                     else r.get(block, {}).get(key) for r in runs], 3)


def table(receiver, tolerance, random_runs, congestion_runs, figure):
    lines = [
        f"| controller | random: Mbit/s | random: called random | congestion: Mbit/s | "
        f"newreno beside it: Mbit/s | congestion: called congestion | ACK delay within "
        f"{tolerance} (random / congestion) |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in CONTROLLERS:
        rnd, cong = random_runs[c], congestion_runs[c]
        mbit = lambda runs, flow: estimate([r["flows"][flow]["goodput_bps"] / 1e6 for r in runs])
        lines.append(
            f"| {c} | {mbit(rnd, 0)} | {estimate([called(r, 'random') for r in rnd])} | "
            f"{mbit(cong, 0)} | {mbit(cong, 1)} | "
            f"{estimate([called(r, 'congestion') for r in cong])} | "
            f"{ack_delay(rnd, figure)} / {ack_delay(cong, figure)} |")
    n = len(random_runs[CONTROLLERS[0]])
    return f"**{receiver}** ({n} seeds)\n\n" + "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10, help="seeds in the simulator")
    ap.add_argument("--netns-runs", type=int, default=3,
                    help="seeds in namespaces (0: leave the s2n-quic receiver out)")
    ap.add_argument("--out", default=str(ROOT / "out" / "receivers-eval"))
    ap.add_argument("--print", action="store_true", help="print the section, write nothing")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "quinn-discern-harness"],
                   cwd=ROOT, check=True)
    paths = {}
    for name, text in [("random", RANDOM_PATH), ("congestion", CONGESTION_PATH)]:
        paths[name] = out / f"receivers-{name}.toml"
        paths[name].write_text(text)
    sections = []
    for receiver, link, keys, figure, tolerance in RECEIVERS:
        runs = args.runs if link == "sim" else args.netns_runs
        if runs == 0:
            continue
        slug = receiver.replace(" ", "").replace("=", "")
        found = {name: sweep(path, link, keys, runs, out / f"{slug}-{name}")
                 for name, path in paths.items()}
        sections.append(table(receiver, tolerance, found["random"], found["congestion"], figure))
    text = "\n\n".join(sections)
    if args.print:
        print(text)
        return
    replace_between(ROOT / "docs" / "RESULTS.md", "receivers", text)
    print("docs/RESULTS.md: receivers updated")


if __name__ == "__main__":
    main()
