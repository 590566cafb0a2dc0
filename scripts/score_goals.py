#!/usr/bin/env python3
"""Prints the bottleneck goals as a markdown table, from a `discern score` output's score.json.

One row per goal and controller: the measured mean ± 95 % CI half width on every class the goal
covers, and whether it is met. A goal is met when the mean satisfies it on every class it covers
that exists (the interval is shown, not tested). Classes not in the scoreboard yet are listed as
"no class yet"; a class without a value (its runs failed) fails the goal.

    scripts/score_goals.py out/score/score.json
    scripts/score_goals.py out/score/score.json --controller discern,quinn-bbr
"""

import argparse
import json
import sys

# The controllers shown by default, when score.json has them.
DEFAULT = ["discern", "quinn-bbr", "noq-bbr3", "quinn-cubic", "newreno"]

RANDOM_LOSS = ["random-10M-40ms-1%", "random-20M-60ms-0.5%", "random-100M-20ms-0.1%",
               "random-2M-200ms-3%", "random-ge-20M-60ms-1%", "jitter-30M-30ms-1%",
               "shallow-20M-40ms-1%", "decimated-20M-60ms-0.5%"]
# Where every loss is random: the random-loss classes but the 0.2-BDP one, whose queue overflows.
RANDOM_ONLY = [c for c in RANDOM_LOSS if not c.startswith("shallow")]
ALONE_RANDOM = RANDOM_LOSS + ["ecn-20M-60ms-0.5%", "codel-20M-40ms-0.5%",
                              "codel-ecn-20M-40ms-0.5%"]
SHARING = ["congestion-vs-newreno", "congestion-vs-cubic", "codel-vs-newreno", "codel-vs-cubic",
           "pie-vs-newreno", "pie-vs-cubic", "lte-tmobile-vs-cubic", "lte-att-vs-cubic",
           "deep-5bdp-vs-cubic", "decimated-vs-newreno", "fq-codel-vs-newreno",
           "fq-codel-vs-cubic", "codel-jitter-vs-newreno"]
CODEL = ["codel-vs-newreno", "codel-vs-cubic", "codel-20M-40ms-0.5%", "pie-vs-newreno",
         "pie-vs-cubic", "codel-jitter-vs-newreno"]
CODEL_PEER = ["codel-vs-newreno", "codel-vs-cubic", "pie-vs-newreno", "pie-vs-cubic",
              "codel-jitter-vs-newreno"]
# Delay noise and bursts alone (issue "`discern` holds its own"): a queue is not judged where the
# path's own jitter stands in it, since no flow can tell that delay from a queue of its own.
NOISY_ALONE = ["jitter-30M-30ms-1%", "jitter-80M-50ms-0.5%", "random-ge-20M-60ms-1%"]
QUIET_ALONE = [c for c in ALONE_RANDOM if not c.startswith("jitter")]
POLICER = ["police-8M-alone", "police-8M-vs-newreno"]
GIGABIT_ALONE = ["random-1G-40ms-0.01%", "random-1G-40ms-0.1%"]
# The policed rate of the policer classes, bit/s, and the share of it a flow alone should carry.
POLICED_BPS = 8e6

# (goal in words, figure, test of the mean, classes, classes still to come)
GOALS = [
    ("random loss: efficiency >= 0.97", "efficiency", lambda m: m >= 0.97, RANDOM_LOSS, []),
    ("random loss: goodput >= 0.99 x quinn-bbr's", "vs_quinn_bbr", lambda m: m >= 0.99,
     RANDOM_LOSS, []),
    ("alone on random loss, no jitter: p95 queue <= budget (max(10 ms, RTT/4))",
     "queue_p95_vs_budget", lambda m: m <= 1.0, QUIET_ALONE, []),
    ("jitter and bursts alone: efficiency >= 0.95", "efficiency", lambda m: m >= 0.95,
     NOISY_ALONE, []),
    ("jitter and bursts alone: goodput >= 0.97 x quinn-bbr's", "vs_quinn_bbr",
     lambda m: m >= 0.97, NOISY_ALONE, []),
    ("against newreno/cubic: peer keeps >= 0.90", "peer_kept", lambda m: m >= 0.90, SHARING,
     []),
    ("against newreno/cubic: share 0.40-0.60", "share", lambda m: 0.40 <= m <= 0.60, SHARING,
     []),
    ("mixed vs newreno: peer keeps >= 0.90", "peer_kept", lambda m: m >= 0.90,
     ["mixed-vs-newreno"], []),
    ("mixed vs newreno: link efficiency >= 0.95", "link_efficiency", lambda m: m >= 0.95,
     ["mixed-vs-newreno"], []),
    ("CoDel, PIE: queue drops <= 2 x the reference's", "queue_drops_vs_reference",
     lambda m: m <= 2.0, CODEL, []),
    ("CoDel, PIE: p95 queue <= 1.5 x the reference's", "queue_p95_vs_reference",
     lambda m: m <= 1.5, CODEL_PEER, []),
    ("CoDel, PIE: >= 95 % of queue losses called congestion", "congestion_as_congestion",
     lambda m: m >= 0.95, CODEL_PEER, []),
    ("FQ-CoDel: own drops <= 2 x the newreno flow's beside it", "own_drops_vs_peer",
     lambda m: m <= 2.0, ["fq-codel-vs-newreno"], []),
    ("FQ-CoDel: own p95 queue <= 1.5 x the newreno flow's beside it", "own_queue_p95_vs_peer",
     lambda m: m <= 1.5, ["fq-codel-vs-newreno"], []),
    ("policer: goodput >= 0.90 of the policed rate", "goodput_bps",
     lambda m: m >= 0.90 * POLICED_BPS, ["police-8M-alone"], []),
    ("policer: queue drops <= 3 x newreno's", "queue_drops_vs_reference",
     lambda m: m <= 3.0, ["police-8M-alone"], []),
    ("policer: newreno keeps >= 0.90", "peer_kept", lambda m: m >= 0.90,
     ["police-8M-vs-newreno"], []),
    ("policer: >= 95 % of queue losses called congestion", "congestion_as_congestion",
     lambda m: m >= 0.95, POLICER, []),
    ("ECN: efficiency >= 0.99", "efficiency", lambda m: m >= 0.99,
     ["ecn-20M-60ms-0.5%", "codel-ecn-20M-40ms-0.5%"], []),
    ("decimated ACKs: newreno keeps >= 0.90", "peer_kept", lambda m: m >= 0.90,
     ["decimated-vs-newreno"], []),
    ("decimated ACKs: >= 95 % of queue losses called congestion", "congestion_as_congestion",
     lambda m: m >= 0.95, ["decimated-vs-newreno"], []),
    ("random loss only: >= 97 % of random losses called random", "random_as_random",
     lambda m: m >= 0.97, RANDOM_ONLY, []),
    ("gigabit alone: efficiency >= 0.97", "efficiency", lambda m: m >= 0.97, GIGABIT_ALONE, []),
    ("gigabit vs cubic: peer keeps >= 0.90", "peer_kept", lambda m: m >= 0.90,
     ["gigabit-vs-cubic"], []),
    ("once a visiting buffer-filler leaves: p95 queue <= budget", "queue_after_peer_vs_budget",
     lambda m: m <= 1.0, ["visit-5bdp-vs-cubic"], []),
    ("no run's stock quinn receiver closes the connection", "receiver_closed",
     lambda m: m == 0.0, GIGABIT_ALONE + ["gigabit-vs-cubic"] + POLICER, []),
]


def estimates(board):
    """(controller, class, figure) -> (mean, CI half width or None) for every figure with a value."""
    out = {}
    for s in board["scores"]:
        e = s.get("estimate")
        if not e or not e.get("n"):
            continue
        lo, hi = e.get("ci95_lo"), e.get("ci95_hi")
        half = (hi - lo) / 2 if lo is not None and hi is not None else None
        out[(s["controller"], s["class"], s["figure"])] = (e["mean"], half)
    return out


def fmt(est):
    mean, half = est
    return f"{mean:.3f}" if half is None else f"{mean:.3f} ± {half:.3f}"


# Figures measured against a reference run (the peer beside a flow of its own kind).
AGAINST_REFERENCE = {"peer_kept"}


def reference_missing(controller, c, figure, by):
    """Whether `figure` has no value only because its reference run has none: the controller's
    own runs on the class were measured (their share), the peer beside its own kind was not (a
    receiver that closed the connection on every seed, or a failed run)."""
    return figure in AGAINST_REFERENCE and (controller, c, "share") in by


def row(goal, controller, by, classes):
    words, figure, test, covered, coming = goal
    present = [c for c in covered if c in classes]
    cells, met, unmeasurable = [], True, False
    for c in present:
        est = by.get((controller, c, figure))
        if est is None and reference_missing(controller, c, figure, by):
            cells.append(f"{c}: no reference (no run of the peer beside its own kind was measured)")
            unmeasurable = True
        elif est is None:
            cells.append(f"{c}: no value")
            met = False
        else:
            cells.append(f"{c}: {fmt(est)}")
            met = met and test(est[0])
    cells += [f"{c}: no class yet" for c in coming + [c for c in covered if c not in classes]]
    if not present:
        verdict = "no class yet"
    elif not met:
        verdict = "**not met**"
    else:
        verdict = "not measurable" if unmeasurable else "met"
    return f"| {words} | `{controller}` | {'; '.join(cells)} | {verdict} |"


def table(board, controllers):
    by = estimates(board)
    classes = {c["id"] for c in board.get("classes", [])} or {s["class"] for s in board["scores"]}
    seeds = board.get("seeds", [])
    lines = [f"Bottleneck goals over {len(seeds)} seed(s): mean ± 95 % CI half width per class. "
             "A goal is met when the mean satisfies it on every class listed that exists "
             "(the interval is not tested); a class without a value fails it, except where the "
             "reference a figure is measured against has none: that goal is not measurable.", "",
             "| goal | controller | measured | met |", "|---|---|---|---|"]
    for goal in GOALS:
        for controller in controllers:
            lines.append(row(goal, controller, by, classes))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("score_json", help="score.json of a `discern score` output folder")
    ap.add_argument("--controller", help="comma-separated controllers [default: those of "
                    + ", ".join(DEFAULT) + " in score.json]")
    args = ap.parse_args()
    try:
        with open(args.score_json) as f:
            board = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"{args.score_json}: {e}")
    present = board.get("controllers", [])
    if args.controller:
        controllers = [c.strip() for c in args.controller.split(",") if c.strip()]
        missing = [c for c in controllers if c not in present]
        if missing:
            sys.exit(f"{args.score_json}: no controller {', '.join(missing)} "
                     f"(it has {', '.join(present)})")
    else:
        controllers = [c for c in DEFAULT if c in present]
        if not controllers:
            sys.exit(f"{args.score_json}: none of {', '.join(DEFAULT)} "
                     f"(it has {', '.join(present)}); name them with --controller")
    print(table(board, controllers))


if __name__ == "__main__":
    main()
