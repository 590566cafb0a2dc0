#!/usr/bin/env python3
"""Writes docs/RESULTS.md's section on how `discern` competes (between its `competing` markers)
from one scoreboard run over the classes where another flow keeps a queue standing.

It scores `discern` (CUBIC's rules against a deep shared queue, the default), `discern` with
NewReno's manners there (`competing=reno`, the design before), `discern` whose slow start ends
on a queue on a noisy path too (`start=delay`, the design before), `discern` whose contest
reopens slow start to 1.5 or 2 held windows rather than 1.75 (`reach`: the frontier between the
share behind one BDP of drop-tail and what CUBIC keeps on the T-Mobile LTE trace), and the
peers on the sharing,
AQM, trace and jitter classes, then tabulates share, what the peer keeps and efficiency per
class: the mean and 95 % confidence interval over the seeds.

    scripts/compete_eval.py                      # runs `discern score --class ...` (release build)
    scripts/compete_eval.py --from out/compete   # tabulates an earlier run
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_eval import BINARY, ROOT, replace_between, run  # noqa: E402

CONTROLLERS = ["discern", "discern:competing=reno", "discern:start=delay", "discern:reach=1.5",
               "discern:reach=2", "newreno", "quinn-cubic", "quinn-bbr"]
SHARING = ["congestion-vs-newreno", "congestion-vs-cubic", "congestion-60M-70ms-vs-cubic",
           "deep-5bdp-vs-cubic", "lte-tmobile-vs-cubic", "lte-att-vs-cubic",
           "umts-tmobile-vs-cubic", "deep-5bdp-vs-bbr", "lte-tmobile-vs-bbr", "codel-vs-newreno",
           "codel-vs-cubic", "pie-vs-newreno", "pie-vs-cubic", "mixed-vs-newreno"]
ALONE = ["jitter-30M-30ms-1%", "jitter-80M-50ms-0.5%", "random-ge-20M-60ms-1%"]


def score(args):
    out = Path(args.from_dir) if args.from_dir else ROOT / "out" / "compete"
    if not args.from_dir:
        run(["cargo", "build", "--release", "-q", "-p", "quinn-discern-harness"])
        run([BINARY, "score", "--controller", ",".join(CONTROLLERS), "--class",
             ",".join(SHARING + ALONE), "--runs", str(args.runs), "--out", str(out)],
            stdout=subprocess.DEVNULL)
    return json.load(open(out / "score.json"))


def cell(rows, controller, cls, figure):
    for r in rows:
        if r["controller"] == controller and r["class"] == cls and r["figure"] == figure:
            est = r.get("estimate") or {}
            if est.get("mean") is None:
                return "-"
            half = (est["ci95_hi"] - est["ci95_lo"]) / 2 if est.get("ci95_hi") is not None else 0
            return f"{est['mean']:.2f} ± {half:.2f}"
    return "-"


def table(rows, classes, figure, title):
    lines = [f"**{title}**", "", "| class | " + " | ".join(f"`{c}`" for c in CONTROLLERS) + " |",
             "|---" * (len(CONTROLLERS) + 1) + "|"]
    for cls in classes:
        lines.append(f"| {cls} | " + " | ".join(cell(rows, c, cls, figure)
                                                for c in CONTROLLERS) + " |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--from", dest="from_dir", help="an existing `discern score` output folder")
    ap.add_argument("--print", action="store_true", help="print instead of writing RESULTS")
    args = ap.parse_args()
    board = score(args)
    rows = board["scores"]
    seeds = len(board["seeds"])
    text = [f"Seeds {board['seeds'][0]}..{board['seeds'][-1]}: `discern score --controller {','.join(CONTROLLERS)} --class "
            f"... --runs {seeds}` (`scripts/compete_eval.py`); mean ± 95 % CI.", ""]
    text += table(rows, SHARING, "share", "Share beside the peer") + [""]
    text += table(rows, SHARING, "peer_kept", "What the peer keeps (against its own kind = 1)")
    text += [""] + table(rows, ALONE, "efficiency", "Efficiency alone (jitter, bursts)")
    text += [""] + table(rows, ALONE, "vs_quinn_bbr", "Goodput x quinn-bbr's alone")
    out = "\n".join(text)
    if args.print:
        print(out)
        return
    replace_between(ROOT / "docs" / "RESULTS.md", "competing", out)
    print("docs/RESULTS.md: competing updated", file=sys.stderr)


if __name__ == "__main__":
    main()
