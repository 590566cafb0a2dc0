#!/usr/bin/env python3
"""Writes docs/RESULTS.md's section "Receivers that lie" (between its `receivers-that-lie`
markers) from a scoreboard run: the classes whose controller's receiver lies about its ACK Delay
(`receiver_lies` on flow 0, the `lie-*` classes of harness/src/score/classes.rs), each beside its
honest twin (same path, same peer, same controller and seed, an honest receiver).

Per controller, lie and queue: what the peer keeps beside the lie / beside the honest receiver
(`peer_kept_vs_honest`), the queue's drops / the honest run's (`queue_drops_vs_honest`), the
controller's loss rate / the honest run's (`loss_rate_vs_honest`), its share, the mean lie and
the share of lies the ACK Delay field's encoded length capped. Each cell is the mean and 95 %
confidence interval over the seeds. A last column counts the seeds in which the controller ran
away: it lost more than RUNAWAY_LOSS of the packets it sent and called most of its loss events
random (no class has random loss), so it read the queue's drops as noise and never backed off. A controller that does so with an honest receiver as well
flips between the two on a chaotic path, and a ratio to the honest run on the same seed then
compares a runaway with a run that is not. The goals (issue 27) are checked on the means beside newreno:
kept >= 0.90, drops <= 1.5x, loss rate <= 2x.

    scripts/liars_eval.py --run --controller discern      # runs `discern score --class 'lie-*'`
                                                         # (360 runs: about 22 min on 2 busy cores)
    scripts/liars_eval.py --score-dir out/score --print    # tabulate an earlier run, show
"""

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_eval import estimate, fmt, replace_between  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "discern"
MARKER = "receivers-that-lie"

# (figure, column header, scale, digits)
COLUMNS = [
    ("peer_kept_vs_honest", "peer kept ×honest", 1.0, 2),
    ("queue_drops_vs_honest", "drops ×honest", 1.0, 2),
    ("loss_rate_vs_honest", "loss rate ×honest", 1.0, 2),
    ("share", "share", 1.0, 2),
    ("lie_mean_us", "mean lie ms", 1e-3, 1),
    ("lies_capped", "lies capped", 1.0, 2),
]

# The goals beside newreno: figure, test on the mean, words.
GOALS = [
    ("peer_kept_vs_honest", lambda m: m >= 0.90, "newreno keeps >= 0.90 of what it keeps beside an honest receiver"),
    ("queue_drops_vs_honest", lambda m: m <= 1.5, "queue drops <= 1.5x the honest run's"),
    ("loss_rate_vs_honest", lambda m: m <= 2.0, "the controller's loss rate <= 2x the honest run's"),
]


# A flow that loses more than this share of what it sent on a path without random loss, and calls
# most of its loss events random, has run away: it reads the queue's drops as noise. (Two flows
# on a 1 BDP drop-tail queue lose a few percent each while backing off as they should.)
RUNAWAY_LOSS = 0.05


def runaway_seeds(score_dir):
    """(controller, class) -> the seeds whose flow 0 ran away, from each run's summary.json."""
    out = {}
    for f in (score_dir / "runs").glob("*/summary.json"):
        s = json.load(open(f))
        flow = s["flows"][0]
        sent = flow["packets_delivered"] + flow["lost_packets"]
        key = (flow["controller"], s["scenario"])
        out.setdefault(key, set())
        verdicts = flow["verdicts"]
        if (sent and flow["lost_packets"] > RUNAWAY_LOSS * sent
                and verdicts["random"] > verdicts["congestion"]):
            out[key].add(s["seed"])
    return out


def twin(c):
    """The honest class a lying class is measured beside, from its description (`as ID, ...`)."""
    return c["description"].split(",")[0].removeprefix("as ")


def lying_classes(classes):
    return [c for c in classes if c["family"] == "a receiver that lies"]


def section(rows, classes, board, runaways):
    by = {(r["controller"], r["class"], r["figure"]): r for r in rows}

    def ran_away(controller, class_id):
        seeds = runaways.get((controller, class_id))
        return "-" if seeds is None else str(len(seeds))

    lying = lying_classes(classes)
    lines = [
        f"{board['seeds'][0]}..{board['seeds'][-1]} ({len(board['seeds'])} seeds); each row a "
        "lie, each cell the mean ± 95 % CI over the seeds, against the same controller and seed "
        "with an honest receiver (the class named in the description). The lie is flow 0's "
        "receiver's: `queue` reports the true ACK Delay plus the queueing its newest packet met, "
        "up to quinn's 25 ms; `25ms` a constant; `always` in every frame, `gap` only in frames "
        "that reveal a loss. The classes write each lie at the length it needs (`length = "
        "\"grow\"`); `lies capped` is the share of rewritten frames whose lie a kept length "
        "could not hold (none here); `runaways` counts the seeds in which the controller ran away, "
        f"losing more than {RUNAWAY_LOSS:.0%} of what it sent and calling most of its loss events "
        "random (no class has random loss), with an honest receiver in the honest row. The scoreboard ran the simulator's default null packet "
        "protection.",
    ]
    for controller in board["controllers"]:
        for peer in ("newreno", "cubic"):
            mine = [c for c in lying if c["id"].endswith(f"-vs-{peer}")]
            if not mine:
                continue
            lines += ["", f"**{controller} beside {'quinn-cubic' if peer == 'cubic' else peer}**", ""]
            lines.append("| lie | " + " | ".join(h for _, h, _, _ in COLUMNS) + " | runaways |")
            lines.append("|---|" + "---|" * (len(COLUMNS) + 1))
            shown = set()
            for c in mine:
                honest = twin(c)
                if honest not in shown:
                    shown.add(honest)
                    share = fmt(estimate(by.get((controller, honest, "share"))))
                    lines.append(f"| honest receiver (`{honest}`) | 1 | 1 | 1 | {share} | 0 | - "
                                 f"| {ran_away(controller, honest)} |")
                cells = [fmt(estimate(by.get((controller, c["id"], f))), s, d)
                         for f, _, s, d in COLUMNS]
                cells.append(ran_away(controller, c["id"]))
                lines.append(f"| {c['label']} | " + " | ".join(cells) + " |")
        goals = goal_lines(by, controller, [c for c in lying if c["id"].endswith("-vs-newreno")])
        if goals:
            lines += ["", f"Goals beside newreno ({controller}):", ""] + goals
    return "\n".join(lines)


def goal_lines(by, controller, classes):
    out = []
    for figure, ok, words in GOALS:
        misses = []
        for c in classes:
            est = estimate(by.get((controller, c["id"], figure)))
            if est is not None and not ok(est[0]):
                misses.append(f"{c['label']} {est[0]:.2f}")
        measured = [c for c in classes if estimate(by.get((controller, c["id"], figure)))]
        if not measured:
            continue
        verdict = "met on every class" if not misses else "missed: " + ", ".join(misses)
        out.append(f"- {words}: {verdict}")
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--score-dir", default="out/score-liars")
    p.add_argument("--run", action="store_true", help="run the scoreboard first")
    p.add_argument("--controller", default="discern")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--binary", default=str(BINARY), help="the discern binary (default: release)")
    p.add_argument("--print", action="store_true", help="print the section instead of writing it")
    args = p.parse_args()
    out = ROOT / args.score_dir
    if args.run:
        cmd = [args.binary, "score", "--controller", args.controller, "--class", "lie-*",
               "--runs", str(args.runs), "--jobs", str(args.jobs), "--out", str(out)]
        print("+", " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    rows = list(csv.DictReader(open(out / "score.csv", newline="")))
    board = json.load(open(out / "score.json"))
    text = section(rows, board["classes"], board, runaway_seeds(out))
    if args.print:
        print(text)
    else:
        replace_between(ROOT / "docs" / "RESULTS.md", MARKER, text)


if __name__ == "__main__":
    main()
