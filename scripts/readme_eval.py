#!/usr/bin/env python3
"""Regenerates the README's evaluation figures between their markers, all from fresh runs:

  sweep-runs   `discern sweep scenarios/quick.toml --runs 10 --controller newreno,quinn-bbr
               --baseline newreno`: the printed table (means, 95 % intervals, paired ratio)
  scoreboard   `discern score --controller defaults,noq-bbr3 --runs N`: three tables (random loss,
               sharing a bottleneck, AQM and queue size; the families of score.json's classes),
               one row per controller from score.csv, and the heatmap and the
               efficiency-against-harm plot copied to docs/results/score.png and tradeoff.png
  sim-speed    the simulator speed table of `cargo test --release -p quinn-discern-harness
               --test sim_speed -- --ignored --nocapture`
  headline     the opening paragraph's figures from the README's own quick sweep (20 s, five loss
               rates, five controllers): each controller's goodput at 1 % loss and the sweep's
               wall time as measured here, and its goodput plot copied to docs/quick-goodput.png
  random-paths `discern score --paths N --path-seed S --controller defaults,noq-bbr3,variants
               --baseline discern`: per controller the mean and tail of each metric and its runs
               whose receiver closed the connection, from paths.json, with the seed and the
               command beside them, the summary page and the CDFs copied to docs/results/paths/
               (README shows the summary page, docs/RESULTS.md the CDFs, `discern`'s variants
               and `quinn-bbr` against `discern` path by path, six controllers' shares split
               by the peer's controller, and `discern`'s lowest efficiencies alone beside
               `quinn-bbr`'s, with the random losses each run's summary.json says it called
               congestion), and the draw's wall time written into
               docs/evaluation.md (`paths-cost`)

The scoreboard step also writes the tables of docs/RESULTS.md's section on the `discern`
controller (between its `discern-*` markers), from the same score.csv, its goals table, and the
bottleneck goals (`bottleneck-goals`, by scripts/score_goals.py from the same score.json).
`--from DIR` takes an existing `discern score` output instead of running one.

    scripts/readme_eval.py                    # all three, 10 seeds (minutes on 2 cores)
    scripts/readme_eval.py --only sweep-runs --runs 5
    scripts/readme_eval.py --only scoreboard --reuse   # re-tabulate out/readme-eval/score
    scripts/readme_eval.py --only scoreboard --from out/score --print   # show, write nothing
    scripts/readme_eval.py --only random-paths --paths 200 --path-seed 1
    scripts/readme_eval.py --only random-paths --paths 6 --print        # a quick look
"""

import argparse
import csv
import json
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "discern"
POOLED = "random-loss (mean)"
# A `--paths` board's run folder under runs/: INDEX-path-K-CONTROLLER (K and CONTROLLER captured).
RUN_DIR = re.compile(r"^\d+-path-(\d+)-(.+)$")


def _load_script(name):
    spec = importlib.util.spec_from_file_location(
        name, Path(__file__).resolve().parent / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


score_goals = _load_script("score_goals")


def draw_arguments(doc, out_name, controllers, controller_help="controllers, comma-separated"):
    """The command line of a script that tabulates one random-path draw's board into a section of
    docs/RESULTS.md: the draw, its controllers, where the board goes, and whether to rerun it,
    reuse it or only print."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--paths", type=int, default=200, help="paths of the draw")
    p.add_argument("--path-seed", type=int, required=True, help="the draw's seed")
    p.add_argument("--controller", default=controllers, help=controller_help)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path, default=ROOT / "out" / out_name)
    p.add_argument("--reuse", action="store_true", help="tabulate an earlier run's outputs")
    p.add_argument("--print", action="store_true", help="print the table, write nothing")
    return p


def quantile(values, q):
    """The `q` quantile, linear between order statistics (as the board's)."""
    v = sorted(values)
    at = q * (len(v) - 1)
    lo, hi = int(at), min(int(at) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (at - lo)


def replace_between(path, marker, text):
    begin, end = f"<!-- BEGIN {marker} -->", f"<!-- END {marker} -->"
    doc = path.read_text()
    if begin not in doc:
        sys.exit(f"{path}: no `{begin}` marker")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{begin}\n{text}\n{end}{tail}")


def run(cmd, **kw):
    print("+", " ".join(map(str, cmd)), file=sys.stderr)
    return subprocess.run(cmd, check=True, cwd=ROOT, text=True, **kw)


def sweep_runs(args):
    cmd = [BINARY, "sweep", "scenarios/quick.toml", "--runs", str(args.runs),
           "--controller", "newreno,quinn-bbr", "--baseline", "newreno",
           "--jobs", str(args.jobs), "--out", str(Path(args.out) / "quick-runs")]
    out = run(cmd, stdout=subprocess.PIPE).stdout
    table = "\n".join(l for l in out.splitlines() if not l.startswith("outputs in "))
    shown = " ".join(str(c) for c in cmd).replace(str(BINARY), "discern")
    shown = shown.split(" --jobs")[0]
    return f"```text\n$ {shown}\n{table}\n```"


def cell(row, scale=1.0, digits=2):
    if row is None or row["n"] in ("", "0"):
        return "n/a"
    mean = float(row["mean"]) * scale
    if row["ci95_lo"] == "":
        return f"{mean:.{digits}f}"
    half = (float(row["ci95_hi"]) - float(row["ci95_lo"])) / 2 * scale
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


# The printed scoreboard's tables, one per family of classes, as `discern score` prints them.
FAMILIES = ["random loss", "sharing a bottleneck", "AQM and queue size"]


def family_columns(rows, classes, family):
    """(class, figure, header) of one family's table: the pooled random-loss figures first, then
    each class's headline figures, in the class table's order."""
    figures = {(r["class"], r["figure"]) for r in rows}
    columns = []
    if family == FAMILIES[0]:
        columns = [(POOLED, "efficiency", "efficiency"), (POOLED, "vs_quinn_bbr", "× quinn-bbr"),
                   (POOLED, "random_as_random", "rnd→rnd"),
                   (POOLED, "queue_delay_p95_s", "p95 queue ms"),
                   (POOLED, "queue_p95_vs_budget", "p95 / budget")]
    for c in classes:
        cid = c["id"]
        if c["family"] != family or c["pooled"]:
            continue
        if (cid, "jain") in figures:
            wanted = [("jain", "Jain"), ("congestion_as_congestion", "cong→cong")]
        elif (cid, "peer_kept") in figures:
            wanted = [("peer_kept", "kept"), ("link_efficiency", "link eff"),
                      ("queue_drops_vs_reference", "drops × ref")]
            if family != FAMILIES[2]:
                wanted.pop()
        else:
            wanted = [("efficiency", "eff"), ("queue_p95_vs_budget", "p95 / budget"),
                      ("queue_drops_vs_reference", "drops × ref")]
        columns += [(cid, f, f"{h} {cid}") for f, h in wanted if (cid, f) in figures]
    return columns


def family_table(rows, classes, family):
    by = {(r["controller"], r["class"], r["figure"]): r for r in rows}
    controllers = list(dict.fromkeys(r["controller"] for r in rows))
    columns = family_columns(rows, classes, family)
    lines = ["| controller | " + " | ".join(h for _, _, h in columns) + " |",
             "|---|" + "---|" * len(columns)]
    lines[0] += " receiver closed |"
    lines[1] += "---|"
    family_classes = {c["id"] for c in classes if c["family"] == family}
    for ctl in controllers:
        cells = [cell(by.get((ctl, c, f)), 1e3, 1) if f == "queue_delay_p95_s"
                 else cell(by.get((ctl, c, f))) for c, f, _ in columns]
        cells.append(str(receiver_closed_runs(rows, ctl, family_classes)))
        lines.append(f"| `{ctl}` | " + " | ".join(cells) + " |")
    return lines


def receiver_closed_runs(rows, controller, classes):
    """Runs of `controller` over `classes` whose stock quinn receiver closed the connection."""
    return sum(round(float(r["mean"]) * int(r["n"])) for r in rows
               if r["controller"] == controller and r["class"] in classes
               and r["figure"] == "receiver_closed" and r["n"] not in ("", "0"))


# Both boards run the default controllers and BBRv3 from noq beside them: the strongest
# loss-tolerant peer a user compares against (its runs are not reproducible, see README).
BOARD_CONTROLLERS = "defaults,noq-bbr3"
# The random board also draws `discern`'s measured variants, each the other side of a frontier:
# `start=delay` (start-up through jitter against the queue start-up builds), `overshoot=drain`,
# `noise=clumps` (rate on fast jittered paths against what a peer keeps), `loss=placement`
# (an AQM's drops behind delay noise against a channel's losses where the flow's own floor
# overflows a buffer), `floor=read` (what a peer keeps against rate alone on jittered paths) and
# `ramp=ease` (a start-up queue a quarter of a pipe deep against the share of a peer that starts
# beside it).
PATHS_CONTROLLERS = (BOARD_CONTROLLERS
                     + ",discern:start=delay,discern:overshoot=drain,discern:noise=clumps"
                     + ",discern:loss=placement,discern:floor=read,discern:ramp=ease")
# The random board compares every controller with this one path by path (`--baseline`).
PATHS_BASELINE = "discern"


def scoreboard(args):
    out = Path(args.from_dir) if args.from_dir else Path(args.out) / "score"
    if not (args.reuse or args.from_dir):
        run([BINARY, "score", "--controller", BOARD_CONTROLLERS, "--runs", str(args.runs),
             "--jobs", str(args.jobs), "--out", str(out)], stdout=subprocess.DEVNULL)
    rows = list(csv.DictReader(open(out / "score.csv", newline="")))
    classes = json.load(open(out / "score.json"))["classes"]
    results = ROOT / "docs" / "RESULTS.md"
    sections = discern_sections(rows, classes, args.runs)
    board = json.load(open(out / "score.json"))
    present = [c for c in score_goals.DEFAULT + ["discern:queue=full"]
               if c in board.get("controllers", [])]
    sections["bottleneck-goals"] = score_goals.table(board, present)
    for marker, text in sections.items():
        if args.print:
            print(f"<!-- {marker} -->\n{text}\n")
        else:
            replace_between(results, marker, text)
    if not args.print:
        print("docs/RESULTS.md: discern tables updated", file=sys.stderr)
    lines = [f"n = {args.runs} seeds per class; mean ± 95 % CI (Student's t). "
             "Definitions: [docs/evaluation.md](docs/evaluation.md)."]
    for family in FAMILIES:
        lines += ["", f"**{family}**", ""] + family_table(rows, classes, family)
    if not args.print:
        (ROOT / "docs" / "results").mkdir(parents=True, exist_ok=True)
        shutil.copy(out / "score.png", ROOT / "docs" / "results" / "score.png")
        shutil.copy(out / "tradeoff.png", ROOT / "docs" / "results" / "tradeoff.png")
    return "\n".join(lines)


def estimate(row):
    """(mean, half-width of the 95 % CI) of a score.csv row, or None."""
    if row is None or row["n"] in ("", "0"):
        return None
    mean = float(row["mean"])
    half = (float(row["ci95_hi"]) - float(row["ci95_lo"])) / 2 if row["ci95_lo"] else 0.0
    return mean, half


def fmt(est, scale=1.0, digits=2):
    if est is None:
        return "n/a"
    mean, half = est
    return f"{mean * scale:.{digits}f} ± {half * scale:.{digits}f}"


# What the `discern` controller is meant to reach (issue 8, section 4): class, figure, the test on
# the mean, the goal in words. Efficiency is goodput / (lossless goodput x (1 - p)).
GOALS = [
    ("random", "efficiency", lambda m: m >= 0.97, "efficiency >= 0.97 on every random-loss class"),
    ("random", "vs_quinn_bbr", lambda m: m >= 0.995, "goodput not below quinn-bbr's (ratio >= 1, 0.5 % allowed)"),
    ("random", "random_as_random", lambda m: m >= 0.97, ">= 97 % of random losses called random"),
    ("congestion-vs-newreno", "share", lambda m: 0.45 <= m <= 0.55, "share 0.45-0.55 against newreno"),
    ("congestion-vs-newreno", "peer_kept", lambda m: m >= 0.90, "newreno keeps >= 90 % of its goodput against its own kind"),
    ("congestion-vs-cubic", "share", lambda m: m <= 0.55, "share <= 0.55 against quinn-cubic"),
    ("congestion-vs-cubic", "peer_kept", lambda m: m >= 0.90, "quinn-cubic keeps >= 90 %"),
    ("congestion-four", "jain", lambda m: m >= 0.95, "Jain's index of four flows >= 0.95"),
    ("congestion-four", "congestion_as_congestion", lambda m: m >= 0.99, ">= 99 % of queue losses called congestion"),
    ("mixed-vs-newreno", "peer_kept", lambda m: m >= 0.90, "mixed: newreno keeps >= 90 % of what it gets against newreno"),
    ("mixed-vs-newreno", "ratio_to_peer", lambda m: m >= 2.0, "mixed: discern gets >= 2x newreno's goodput"),
    ("ecn-20M-60ms-0.5%", "efficiency", lambda m: m >= 0.99, "ECN bottleneck: efficiency >= 0.99"),
]


def discern_sections(rows, families, runs):
    by = {(r["controller"], r["class"], r["figure"]): r for r in rows}
    controllers = list(dict.fromkeys(r["controller"] for r in rows))
    classes = list(dict.fromkeys(r["class"] for r in rows if r["class"] != POOLED))
    random = [c["id"] for c in families if c["pooled"]]
    lossless_random = [c for c in random if not c.startswith("ecn")]
    shared = [c["id"] for c in families if c["family"] == FAMILIES[1]]
    head = f"n = {runs} seeds per class; mean ± 95 % CI (Student's t)."

    def table(columns, value):
        lines = [head, "", "| controller | " + " | ".join(h for h, _ in columns) + " |",
                 "|---|" + "---|" * len(columns)]
        for ctl in controllers:
            lines.append(f"| `{ctl}` | " + " | ".join(value(ctl, key) for _, key in columns) + " |")
        return "\n".join(lines)

    eff = table([(c, c) for c in random],
                lambda ctl, c: f"{fmt(estimate(by.get((ctl, c, 'efficiency'))))} "
                               f"({fmt(estimate(by.get((ctl, c, 'vs_quinn_bbr'))))})")
    verdicts = table([(c, c) for c in lossless_random],
                     lambda ctl, c: fmt(estimate(by.get((ctl, c, "random_as_random"))), 100, 1))
    queue = table([(c, c) for c in random],
                  lambda ctl, c: fmt(estimate(by.get((ctl, c, "queue_delay_p95_s"))), 1000, 1))
    shared_cols = []
    names = {"share": "share", "peer_kept": "kept", "ratio_to_peer": "ratio", "jain": "Jain",
             "congestion_as_congestion": "cong→cong"}
    for c in shared:
        figures = ["share", "peer_kept"] + (["ratio_to_peer"] if c.startswith("mixed") else [])
        figures += ["jain", "congestion_as_congestion"]
        for figure in figures:
            if (controllers[0], c, figure) in by:
                shared_cols.append((f"{c}: {names[figure]}", (c, figure)))
    sharing = table(shared_cols, lambda ctl, key: fmt(estimate(by.get((ctl, *key)))))

    goals = [head, "", "| goal | measured (`discern`) | met |", "|---|---|---|"]
    for cls, figure, test, words in GOALS:
        targets = lossless_random if cls == "random" else [cls]
        cells, met = [], True
        for c in targets:
            est = estimate(by.get(("discern", c, figure)))
            if est is None:
                cells.append(f"{c}: n/a")
                met = False
                continue
            cells.append(f"{c}: {fmt(est)}" if len(targets) > 1 else fmt(est))
            met = met and test(est[0])
        goals.append(f"| {words} | {'; '.join(cells)} | {'yes' if met else '**no**'} |")
    return {"discern-goals": "\n".join(goals), "discern-efficiency": eff,
            "discern-verdicts": verdicts, "discern-queue": queue, "discern-sharing": sharing}


# The README's quick sweep: its command is printed under the paragraph this step writes.
HEADLINE_LOSSES = ["0", "0.001", "0.003", "0.01", "0.03"]
HEADLINE_CONTROLLERS = ["newreno", "composite", "wnewreno", "modified-sack", "quinn-cubic"]


def headline(args):
    out = Path(args.out) / "quick-headline"
    cmd = [BINARY, "sweep", "scenarios/quick.toml", "--set", "duration=20s",
           "--vary", "link.bottleneck.loss.rate=" + ",".join(HEADLINE_LOSSES),
           "--controller", ",".join(HEADLINE_CONTROLLERS), "--out", str(out)]
    started = time.monotonic()
    run(cmd, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - started
    with open(out / "sweep.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    at = {r["controller"]: float(r["goodput_total_bps"]) / 1e6
          for r in rows if r["link.bottleneck.loss.rate"] == "0.01"}
    if not args.print:
        shutil.copyfile(out / "goodput.png", ROOT / "docs" / "quick-goodput.png")
    return (f"One 10 Mbit/s path with a 40 ms RTT, for 20 s, at random loss rates 0 to 3 %. At 1 %, "
            f"NewReno keeps {at['newreno']:.1f} Mbit/s of the link and CUBIC "
            f"{at['quinn-cubic']:.1f}; Modified SACK keeps {at['modified-sack']:.1f}, WNewReno "
            f"{at['wnewreno']:.1f} and Composite {at['composite']:.1f}. The {len(rows)} runs took "
            f"{wall:.1f} s here ({os.cpu_count()} CPUs), figures and plot from "
            f"`scripts/readme_eval.py --only headline`:")


def sim_speed(args):
    out = run(["cargo", "test", "--release", "-q", "-p", "quinn-discern-harness", "--test", "sim_speed",
               "--", "--ignored", "--nocapture"], stdout=subprocess.PIPE).stdout
    table = [l for l in out.splitlines() if l.startswith("|")]
    return "\n".join(table)


PATHS_COLUMNS = [
    ("efficiency", "efficiency alone", "p10"),
    ("share", "share beside a peer", "p10"),
    ("peer_kept", "peer keeps", "p10"),
    ("queue_p95_vs_budget_no_jitter", "p95 queue / budget, no jitter", "p90"),
    ("queue_after_peer_vs_budget", "queue after a peer left / budget", "p90"),
]


def paths_run(args):
    """Runs the draw (unless reused) and returns its folder; the wall time goes to wall.json."""
    out = Path(args.from_paths) if args.from_paths else Path(args.out) / "paths"
    if args.reuse or args.from_paths:
        return out
    cmd = [BINARY, "score", "--paths", str(args.paths), "--path-seed", str(args.path_seed),
           "--controller", PATHS_CONTROLLERS, "--baseline", PATHS_BASELINE,
           "--jobs", str(args.jobs), "--out", str(out)]
    print("+", " ".join(map(str, cmd)), file=sys.stderr)
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, text=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    if not (out / "paths.json").is_file():
        sys.exit(f"`discern score --paths` exited {done.returncode} without paths.json")
    (out / "wall.json").write_text(json.dumps({"wall_s": wall, "jobs": args.jobs,
                                               "cpus": os.cpu_count()}) + "\n")
    return out


def paths_table(board):
    """One row per controller: each metric's mean and its tail (p10, or p90 for the queues)."""
    spreads = {(s["controller"], s["metric"]): s for s in board["spreads"]}
    closed = {o["controller"]: o["runs"] for o in board["outcomes"]
              if o["outcome"] == "receiver_closed"}
    head = "| controller | " + " | ".join(f"{label} (mean, {tail})"
                                          for _, label, tail in PATHS_COLUMNS)
    head += " | receiver closed the connection (runs) |"
    lines = [head, "|---" * (len(PATHS_COLUMNS) + 2) + "|"]
    for c in board["controllers"]:
        cells = []
        for metric, _, tail in PATHS_COLUMNS:
            s = spreads.get((c, metric))
            cells.append("n/a" if s is None else f"{s['mean']:.2f}, {s[tail]:.2f} (n {s['n']})")
        cells.append(str(closed.get(c, 0)))
        lines.append(f"| `{c}` | " + " | ".join(cells) + " |")
    return lines


def paired_table(board):
    """`discern`'s variants and `quinn-bbr` against `discern` on the same paths: per metric the
    mean of the differences path by path with its 95 % interval, and the paths better and worse
    by the metric's direction."""
    paired = {(p["controller"], p["metric"]): p for p in board.get("paired", [])}
    rows = [c for c in board["controllers"]
            if c.startswith(PATHS_BASELINE + ":") or c == "quinn-bbr"]
    if not paired or not rows:
        return []
    head = ("| against `" + PATHS_BASELINE + "` | "
            + " | ".join(label for _, label, _ in PATHS_COLUMNS) + " |")
    lines = [head, "|---" * (len(PATHS_COLUMNS) + 1) + "|"]
    for c in rows:
        cells = []
        for metric, _, _ in PATHS_COLUMNS:
            p = paired.get((c, metric))
            if p is None:
                cells.append("n/a")
                continue
            d = p["difference"]
            interval = ("" if d["ci95_lo"] is None
                        else f" [{d['ci95_lo']:+.3f}, {d['ci95_hi']:+.3f}]")
            cells.append(f"{d['mean']:+.3f}{interval}, {p['better']} better / {p['worse']} worse")
        lines.append(f"| `{c}` | " + " | ".join(cells) + " |")
    return lines


# `discern`'s lowest efficiencies alone that the random board lists, and the share of a path's
# random losses that, called congestion, marks it as one where the calls cost rate.
SHORTFALL_PATHS = 12
MISREAD_SHARE = 0.1
MISREAD_MIN_LOSSES = 5


def path_link(row):
    """A path's link in a few words, from its paths.csv row."""
    rate = (f"{float(row['capacity_mbit']):g} Mbit/s" if row["capacity"] == "fixed"
            else f"trace {row['capacity']}")
    words = [rate, f"{row['rtt_ms']} ms", f"{row['queue']} {row['buffer_bdp']} BDP"]
    if row["loss_model"] != "none":
        words.append(f"{row['loss_model']} {float(row['loss_rate']) * 100:.2g} %")
    if row["jitter_model"] != "none":
        words.append(f"{row['jitter_model']} jitter {row['jitter_ms']} ms")
    if row["decimated"] == "true":
        words.append("ACK every 10th")
    return ", ".join(words)


def random_misread(out):
    """Per path: (random losses `discern` called congestion, random losses), as the simulator,
    which knows each drop's cause, scored its verdicts."""
    misread = {}
    for summary in (out / "runs").glob("*-path-*-discern/summary.json"):
        run = json.load(open(summary))
        accuracy = run["flows"][0]["verdict_accuracy"]
        called = accuracy["random_as_congestion"]
        misread[run["scenario"].removeprefix("path-")] = (
            called, called + accuracy["random_as_random"])
    return misread


def efficiency_shortfall(out):
    """Where `discern` alone falls short: its lowest efficiencies beside `quinn-bbr`'s on the same
    paths, with the random losses it called congestion, and the means over the paths where such
    calls were common and where they were not."""
    rows = list(csv.DictReader(open(out / "paths.csv")))
    alone = {r["path"]: r for r in rows if r["controller"] == "discern" and r["efficiency"]}
    bbr = {r["path"]: float(r["efficiency"]) for r in rows
           if r["controller"] == "quinn-bbr" and r["efficiency"]}
    misread = random_misread(out)
    if not alone or not bbr:
        return []
    lines = ["| path | link | `discern` efficiency | `quinn-bbr` efficiency "
             "| random losses `discern` called congestion |", "|---|---|---|---|---|"]
    lowest = sorted(alone, key=lambda p: float(alone[p]["efficiency"]))[:SHORTFALL_PATHS]
    for p in lowest:
        called, random = misread.get(p, (0, 0))
        lines.append(f"| {p} | {path_link(alone[p])} | {float(alone[p]['efficiency']):.2f} | "
                     f"{bbr.get(p, float('nan')):.2f} | {called} of {random} |")

    def misreads(p):
        called, random = misread.get(p, (0, 0))
        return random >= MISREAD_MIN_LOSSES and called > MISREAD_SHARE * random

    def means(paths):
        if not paths:
            return "no paths"
        own = sum(float(alone[p]["efficiency"]) for p in paths) / len(paths)
        ref = sum(bbr[p] for p in paths if p in bbr) / max(1, sum(p in bbr for p in paths))
        return f"{len(paths)} paths, mean efficiency {own:.2f} (`quinn-bbr` {ref:.2f})"

    def split(test):
        return [p for p in alone if test(p)], [p for p in alone if not test(p)]

    jittered, quiet = split(lambda p: alone[p]["jitter_model"] != "none")
    common, rest = split(misreads)
    lines += ["", f"Of the {len(alone)} paths `discern` ran alone, those with jitter: "
              f"{means(jittered)}; without: {means(quiet)}. Those where it called more than "
              f"{MISREAD_SHARE:.0%} of {MISREAD_MIN_LOSSES} or more random losses congestion: "
              f"{means(common)}; the others: {means(rest)}."]
    return lines


# The controllers whose share beside each kind of peer the random board breaks down.
SHARE_BY_PEER_CONTROLLERS = ("discern", "discern:queue=full", "newreno", "quinn-cubic",
                             "noq-bbr3", "quinn-bbr")


def share_by_peer(out):
    """Each controller's share beside a peer, split by the peer's controller (`copy`: a second
    flow of its own kind): mean and p10, so that the board's share tail reads by whom it is set."""
    rows = [r for r in csv.DictReader(open(out / "paths.csv"))
            if r["share"] and r["controller"] in SHARE_BY_PEER_CONTROLLERS]
    if not rows:
        return []
    peers = sorted({r["peer"] for r in rows}, key=lambda p: (p == "copy", p))
    lines = ["| controller | " + " | ".join(f"beside `{p}` (mean, p10)" if p != "copy"
                                           else "beside its own kind (mean, p10)"
                                           for p in peers) + " |",
             "|---" * (len(peers) + 1) + "|"]
    for c in SHARE_BY_PEER_CONTROLLERS:
        cells = []
        for p in peers:
            shares = [float(r["share"]) for r in rows if r["controller"] == c and r["peer"] == p]
            cells.append(f"{sum(shares) / len(shares):.2f}, {quantile(shares, 0.1):.2f} "
                         f"(n {len(shares)})" if shares else "n/a")
        lines.append(f"| `{c}` | " + " | ".join(cells) + " |")
    return lines


def random_paths(args):
    out = paths_run(args)
    board = json.load(open(out / "paths.json"))
    draw = board["draw"]
    seed_line = (f"Seed {draw['path_seed']}, {draw['paths']} paths: `{board['command']}` "
                 "(definitions and distributions: [docs/evaluation.md](docs/evaluation.md#random-paths)); "
                 f"{len(board['failures'])} runs failed.")
    lines = [seed_line, ""] + paths_table(board)
    worst = [s for s in board["spreads"] if s["controller"] == "discern"]
    if worst:
        lines += ["", "`discern`'s worst paths (rerun with the command):", ""]
        lines += [f"- {s['metric']} {s['worst']['value']:.2f}: {s['worst']['description']}; "
                  f"`{s['worst']['command']}`" for s in worst]
    pictures = ["paths-summary.png"] + [f"cdf-{m}.png" for m in
                                        ("efficiency", "share", "peer_kept",
                                         "queue_p95_vs_budget")]
    if not args.print:
        target = ROOT / "docs" / "results" / "paths"
        target.mkdir(parents=True, exist_ok=True)
        for name in pictures:
            shutil.copy(out / name, target / name)
        cdfs = [f"![CDF of {p[4:-4]}, seed {draw['path_seed']}](results/paths/{p})"
                for p in pictures[1:]]
        paired = paired_table(board)
        if paired:
            paired = ["", f"The same paths, each controller against `{PATHS_BASELINE}`: the mean "
                      "of its value minus the default's, path by path, with the 95 % interval, "
                      "and the paths it did better and worse on:", ""] + paired
        shortfall = efficiency_shortfall(out)
        if shortfall:
            shortfall = ["", f"`discern`'s {SHORTFALL_PATHS} lowest efficiencies alone, beside "
                         "`quinn-bbr`'s on the same paths:", ""] + shortfall
        by_peer = share_by_peer(out)
        if by_peer:
            by_peer = ["", "Share beside a peer, by the peer's controller (the same paths' share "
                       "column, split):", ""] + by_peer
        replace_between(ROOT / "docs" / "RESULTS.md", "random-paths",
                        "\n".join(lines + paired + by_peer + shortfall + [""] + cdfs))
        wall_file = out / "wall.json"
        if wall_file.is_file():
            wall = json.load(open(wall_file))
            manifest = json.load(open(out / "manifest.json"))
            cost = (f"Measured by `scripts/readme_eval.py --only random-paths`: {draw['paths']} "
                    f"paths (seed {draw['path_seed']}) x {len(board['controllers'])} controllers, "
                    f"{manifest['total']} runs with the references, took "
                    f"{wall['wall_s'] / 60:.1f} minutes of wall time with `--jobs {wall['jobs']}` "
                    f"on a {wall['cpus']}-CPU machine (release build).")
            replace_between(ROOT / "docs" / "evaluation.md", "paths-cost", cost)
        print("docs/RESULTS.md, docs/evaluation.md: random paths updated", file=sys.stderr)
    summary = (f"![Random-path board, seed {draw['path_seed']}, {draw['paths']} paths]"
               f"(docs/results/paths/paths-summary.png)")
    return "\n".join(lines + ["", summary])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=str(ROOT / "out" / "readme-eval"))
    ap.add_argument("--only", choices=["sweep-runs", "scoreboard", "sim-speed", "headline",
                                       "random-paths"])
    ap.add_argument("--paths", type=int, default=200, help="random-paths: paths in the draw")
    ap.add_argument("--path-seed", type=int, default=1, help="random-paths: the draw's seed")
    ap.add_argument("--from-paths", help="an existing `discern score --paths` output folder")
    ap.add_argument("--from", dest="from_dir", help="an existing `discern score` output folder")
    ap.add_argument("--reuse", action="store_true",
                    help="scoreboard, random-paths: tabulate the last run's outputs instead of "
                         "running it")
    ap.add_argument("--print", action="store_true",
                    help="print the generated blocks instead of writing README.md, "
                         "docs/RESULTS.md, docs/results/score.png and tradeoff.png")
    args = ap.parse_args()
    run(["cargo", "build", "--release", "-q", "-p", "quinn-discern-harness"])
    readme = ROOT / "README.md"
    for marker, make in [("sweep-runs", sweep_runs), ("scoreboard", scoreboard),
                         ("sim-speed", sim_speed), ("headline", headline),
                         ("random-paths", random_paths)]:
        if args.only in (None, marker):
            if args.print:
                print(f"<!-- {marker} -->\n{make(args)}\n")
                continue
            replace_between(readme, marker, make(args))
            print(f"README.md: {marker} updated", file=sys.stderr)


if __name__ == "__main__":
    main()
