#!/usr/bin/env python3
"""Writes docs/RESULTS.md's section "`discern` and BBRv3" (between its `discern-and-bbrv3`
markers) from a scoreboard run that has `noq-bbr3` beside `discern` and `quinn-bbr`, as
`scripts/readme_eval.py --only scoreboard` runs it (`discern score --controller defaults,noq-bbr3`).

Class by class, as the scoreboard measures them (harness/src/score/classes.rs):
- one flow alone on random loss: each controller's efficiency, and `discern`'s goodput over
  BBRv3's paired seed by seed (the runs' summary.json), with the 95 % interval of the ratios;
- against a peer: the share each takes and what the peer keeps;
- alone, the p95 queueing delay over the budget (max(10 ms, base RTT / 4)).
Each cell is the mean ± 95 % CI half width over the seeds. The goal (issue 28): `discern` >=
BBRv3 on every random-loss class, far above it beyond BBRv3's 2 % loss threshold.

    scripts/bbr3_eval.py                                  # out/readme-eval/score, into RESULTS
    scripts/bbr3_eval.py --score-dir out/score --print    # another run, printed only
"""

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_eval import estimate, fmt, replace_between  # noqa: E402
from results_tables import Est  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MARKER = "discern-and-bbrv3"
CONTROLLERS = ["discern", "noq-bbr3", "quinn-bbr"]
OURS, BBR3 = "discern", "noq-bbr3"


def mean_interval(values):
    """(mean, 95 % half width) of `values` (Student's t, as the tables of RESULTS); half width 0
    for one value, None for none."""
    if not values:
        return None
    est = Est(values)
    return est.mean, est.half or 0.0


def paired_ratios(score_dir, classes):
    """Per class, `discern`'s goodput over BBRv3's on the same seed, from the runs' summaries."""
    manifest = json.load(open(score_dir / "manifest.json"))
    goodput = {}
    for run in manifest["runs"]:
        job = run["job"]
        if run["error"] or job["lossless"] or job["controller"] not in (OURS, BBR3):
            continue
        summary = json.load(open(score_dir / "runs" / run["dir"] / "summary.json"))
        goodput[(job["class"], job["controller"], job["seed"])] = summary["flows"][0]["goodput_bps"]
    ratios = {}
    for c in classes:
        pairs = [(g, goodput.get((c, BBR3, seed))) for (cls, ctl, seed), g in goodput.items()
                 if cls == c and ctl == OURS]
        ratios[c] = mean_interval([a / b for a, b in pairs if b])
    return ratios


def table(by, classes, columns, extra=None):
    """A markdown table: one row per class, (header, controller, figure) columns."""
    head = "| class | " + " | ".join(h for h, _, _ in columns)
    head += f" | {extra[0]} |" if extra else " |"
    lines = [head, "|" + "---|" * (len(columns) + 1 + bool(extra))]
    for c in classes:
        cells = [fmt(estimate(by.get((ctl, c, fig)))) for _, ctl, fig in columns]
        if extra:
            cells.append(fmt(extra[1].get(c)))
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    return lines


def section(score_dir):
    rows = list(csv.DictReader(open(score_dir / "score.csv", newline="")))
    board = json.load(open(score_dir / "score.json"))
    missing = [c for c in CONTROLLERS if c not in board["controllers"]]
    if missing:
        sys.exit(f"{score_dir}: no runs of {', '.join(missing)}; run the board with "
                 "`--controller defaults,noq-bbr3`")
    by = {(r["controller"], r["class"], r["figure"]): r for r in rows}
    has = lambda fig: [c["id"] for c in board["classes"]
                       if estimate(by.get((OURS, c["id"], fig))) is not None]
    alone_random = [c for c in has("efficiency") if c in has("vs_quinn_bbr")]
    against = has("peer_kept")
    queue = has("queue_p95_vs_budget")
    ratios = paired_ratios(score_dir, alone_random)
    seeds = board["seeds"]
    lines = [
        f"From one scoreboard run, seeds {seeds[0]}..{seeds[-1]} ({len(seeds)} per class), "
        "`noq-bbr3` beside `discern` and `quinn-bbr` (quinn's BBRv1). BBRv3's runs are not "
        "reproducible from the seed (noq-proto 1.4 keeps its probe seed private), so its "
        "intervals carry that spread too.",
        "",
        "**Alone on random loss**: efficiency, and `discern`'s goodput ÷ BBRv3's paired by seed.",
        "",
    ]
    lines += table(by, alone_random, [(f"eff {c}", c, "efficiency") for c in CONTROLLERS],
                   ("discern ÷ noq-bbr3", ratios))
    below = [c for c in alone_random if ratios.get(c) and ratios[c][0] < 1.0]
    lines += ["", "Goal, `discern` >= BBRv3 on every random-loss class: "
              + ("met." if not below else "not met on " + ", ".join(f"`{c}`" for c in below) + ".")]
    lines += ["", "**Against a peer**: the share each takes and what the peer keeps "
              "(against it ÷ against its own kind).", ""]
    lines += table(by, against, [(f"share {c}", c, "share") for c in CONTROLLERS]
                   + [(f"kept {c}", c, "peer_kept") for c in CONTROLLERS])
    lines += ["", "**Queue alone**: p95 queueing delay ÷ max(10 ms, base RTT / 4).", ""]
    lines += table(by, queue, [(c, c, "queue_p95_vs_budget") for c in CONTROLLERS])
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--score-dir", default=str(ROOT / "out" / "readme-eval" / "score"))
    ap.add_argument("--print", action="store_true", help="print the section, write nothing")
    args = ap.parse_args()
    text = section(Path(args.score_dir))
    if args.print:
        print(text)
        return
    replace_between(ROOT / "docs" / "RESULTS.md", MARKER, text)
    print(f"docs/RESULTS.md: {MARKER} updated", file=sys.stderr)


if __name__ == "__main__":
    main()
