#!/usr/bin/env python3
"""Writes docs/RESULTS.md's table on how much of the random board's "what the peer keeps" is the
peer's own luck (between its `peer-kept-noise` markers).

The board runs each path once, at one seed, and divides the peer's goodput beside a controller by
its goodput beside a flow of its own kind at the same seed. A peer's own goodput moves from seed to
seed (where its first channel loss falls in slow start, which of two BBRv1 flows starves), so the
ratio's tail holds the peer's luck as well as the controller's harm. This script measures both:

  - the draw's board for the controllers (`discern score --paths N --path-seed S`);
  - on every path with a peer of another kind, the reference run (the peer beside its own kind)
    again at five more seeds, and each controller's run at two more;
  - what the peer keeps at one seed (the board's figure) and over three seeds (the mean of the
    peer's goodput beside the controller over the mean beside its own kind);
  - the same ratio for the peer's own kind against itself at other seeds (one seed against one,
    three against three): the figure a controller that changed nothing would read, so the
    metric's own spread. Its 10th percentile is the least a goal on the board's can ask.

The paths are those the board measures (the reference at the board's seed took at least a
twentieth of what its two flows delivered, and no receiver closed), the same for every row.

    scripts/peer_kept_noise.py --path-seed 80214         # 200 paths (about 8 minutes on 2 CPUs)
    scripts/peer_kept_noise.py --path-seed 80214 --print # runs, prints, writes nothing
    scripts/peer_kept_noise.py --path-seed 80214 --reuse # re-tabulates out/peer-kept-noise
"""

import json
import shutil
import statistics
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_eval import (  # noqa: E402
    BINARY, ROOT, RUN_DIR, draw_arguments, quantile, replace_between, run)

MARKER = "peer-kept-noise"
# The board's least share of the reference run the peer must take (`MIN_REFERENCE_SHARE`).
MIN_REFERENCE_SHARE = 0.05
# Seeds beyond the board's: the reference's first two make its three-seed mean, the last three the
# three seeds it is compared with; a controller's two make its three-seed mean.
REFERENCE_SEEDS = 5
CONTROLLER_SEEDS = 2
# The goal the issue sets on the tail of what the peer keeps.
GOAL_P10 = 0.75


def flows(run_dir):
    return json.loads((run_dir / "summary.json").read_text())["flows"]


def scenario(run_dir):
    """The scenario `discern score --paths` wrote for a run: its `seed` and `description`."""
    with open(run_dir / "scenario.toml", "rb") as f:
        return tomllib.load(f)


class Rerun:
    """One board run at `extra` more seeds: `goodputs(k)` is the flows' goodput at seed + k."""

    def __init__(self, board_run, out, extra):
        self.board_run, self.out, self.extra = board_run, out, extra

    def seed_dir(self, k):
        return self.board_run if k == 0 else self.out / f"seed+{k}"

    def run(self):
        seed = scenario(self.board_run)["seed"]
        for k in self.missing():
            cmd = [BINARY, "run", self.board_run / "scenario.toml", "--set", f"seed={seed + k}",
                   "--allow-incomplete", "--out", self.seed_dir(k)]
            done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                sys.exit(f"`{' '.join(map(str, cmd))}` exited {done.returncode}:\n{done.stderr}")

    def missing(self):
        """The extra seeds whose run has left no summary yet."""
        return [k for k in range(1, self.extra + 1)
                if not (self.seed_dir(k) / "summary.json").exists()]

    def peer_goodput(self, k):
        return flows(self.seed_dir(k))[1]["goodput_bps"]

    def qualifies(self, k):
        """The reference at seed + k is one the board measures against."""
        f = flows(self.seed_dir(k))
        total = sum(x["goodput_bps"] for x in f)
        return (all(x.get("receiver_closed") is None for x in f)
                and f[1]["goodput_bps"] >= MIN_REFERENCE_SHARE * total > 0)

    def mean_peer(self, seeds):
        return statistics.mean(self.peer_goodput(k) for k in seeds)


def plan(board, controllers, out):
    """Per path with a peer of another kind: its reference rerun and each controller's."""
    runs = {}
    for d in sorted((board / "runs").iterdir()):
        m = RUN_DIR.match(d.name)
        if m:
            runs.setdefault(int(m.group(1)), {})[m.group(2)] = d
    paths = {}
    for path, by_id in runs.items():
        references = [i for i in by_id if i not in controllers]
        if len(references) != 1 or not all(c in by_id for c in controllers):
            continue
        (ref,) = references
        paths[path] = {
            "peer": ref,
            "reference": Rerun(by_id[ref], out / f"path-{path}" / ref, REFERENCE_SEEDS),
            **{c: Rerun(by_id[c], out / f"path-{path}" / c, CONTROLLER_SEEDS) for c in controllers},
        }
    return paths


def spread_row(label, values):
    return (f"| {label} | {len(values)} | {statistics.mean(values):.2f} | "
            f"{quantile(values, 0.1):.2f} | {quantile(values, 0.25):.2f} | "
            f"{quantile(values, 0.5):.2f} |")


def table(draw, paths, controllers):
    measured = {p: r for p, r in paths.items() if r["reference"].qualifies(0)}
    ref = {p: r["reference"] for p, r in measured.items()}
    lines = [
        f"Seed {draw['path_seed']}, {draw['paths']} paths; {len(measured)} with a peer of another kind "
        "that the board measures. What the peer keeps: its goodput beside the row's flow / beside "
        "its own kind.",
        "",
        "| row | paths | mean | p10 | p25 | median |",
        "|---|---|---|---|---|---|",
    ]
    for c in controllers:
        one = [r[c].peer_goodput(0) / ref[p].peer_goodput(0) for p, r in measured.items()]
        three = [r[c].mean_peer(range(3)) / ref[p].mean_peer(range(3)) for p, r in measured.items()]
        lines.append(spread_row(f"`{c}`, one seed (the board's figure)", one))
        lines.append(spread_row(f"`{c}`, three seeds", three))
    one = [r.peer_goodput(1) / r.peer_goodput(0) for r in ref.values()]
    three = [r.mean_peer(range(3, 6)) / r.mean_peer(range(3)) for r in ref.values()]
    lines.append(spread_row("the peer's own kind at another seed, one seed", one))
    lines.append(spread_row("the peer's own kind at other seeds, three against three", three))
    for kind in sorted({r["peer"] for r in measured.values()}):
        of_kind = [r for p, r in ref.items() if measured[p]["peer"] == kind]
        lines.append(spread_row(
            f"of which the peer is `{kind}`, one seed",
            [r.peer_goodput(1) / r.peer_goodput(0) for r in of_kind]))
    first = controllers[0]
    low = sorted(
        (r[first].mean_peer(range(3)) / ref[p].mean_peer(range(3)), p) for p, r in measured.items())
    low = [(kept, p) for kept, p in low if kept < GOAL_P10]
    lines += ["", f"The paths where the peer keeps less than {GOAL_P10} beside `{first}` over three "
              "seeds, with what it keeps beside its own kind at three other seeds:", ""]
    for kept, p in low:
        own = ref[p].mean_peer(range(3, 6)) / ref[p].mean_peer(range(3))
        # "random path K: <the path>"
        described = scenario(ref[p].board_run)["description"].split(": ", 1)[-1]
        lines.append(f"- path {p}: {kept:.2f} (own kind {own:.2f}); {described}")
    lines += ["", f"Written by `scripts/peer_kept_noise.py --paths {draw['paths']} --path-seed "
              f"{draw['path_seed']}`: the board's run of each path is seed 0, the reruns "
              f"(`discern run SCENARIO --set seed=...`) seeds 1 to {REFERENCE_SEEDS} of the "
              f"reference and 1 to {CONTROLLER_SEEDS} of each controller."]
    return "\n".join(lines)


def main():
    a = draw_arguments(__doc__, "peer-kept-noise", "discern,noq-bbr3",
                       "controllers, comma-separated, none of them a peer kind").parse_args()
    controllers = [c for c in a.controller.split(",") if c]
    peers = {"newreno", "quinn-cubic", "quinn-bbr"} & set(controllers)
    if not controllers or peers:
        sys.exit(f"--controller {a.controller!r}: name one or more controllers, none of them a "
                 f"peer kind ({', '.join(sorted(peers)) or 'none given'}): a peer beside its own "
                 "kind is the reference itself")
    board = a.out / "board"
    if not a.reuse:
        if not BINARY.exists():
            sys.exit(f"{BINARY} not found: cargo build --release -p quinn-discern-harness")
        # A board and reruns of an earlier draw would mix with this one's under the same names.
        shutil.rmtree(a.out, ignore_errors=True)
        run([BINARY, "score", "--paths", str(a.paths), "--path-seed", str(a.path_seed),
             "--controller", ",".join(controllers), "--jobs", str(a.jobs), "--out", board],
            stdout=subprocess.DEVNULL)
    elif not (board / "paths.csv").exists():
        sys.exit(f"--reuse: {board}/paths.csv not found; run without --reuse first")
    paths = plan(board, controllers, a.out / "reruns")
    if not paths:
        sys.exit(f"{board}: no path has runs of {', '.join(controllers)} beside a peer of another "
                 "kind; was the board run with these controllers (--controller)?")
    reruns = [r for by in paths.values() for k, r in by.items() if k != "peer"]
    if not a.reuse:
        with ThreadPoolExecutor(a.jobs) as pool:
            list(pool.map(Rerun.run, reruns))
    elif any(r.missing() for r in reruns):
        sys.exit(f"--reuse: some reruns under {a.out / 'reruns'} are missing; run without --reuse")
    draw = json.loads((board / "paths.json").read_text())["draw"]
    if a.reuse and (draw["path_seed"], draw["paths"]) != (a.path_seed, a.paths):
        sys.exit(f"--reuse: {board} holds {draw['paths']} paths of seed {draw['path_seed']}, not "
                 f"{a.paths} of seed {a.path_seed}; give those, or run without --reuse")
    text = table(draw, paths, controllers)
    print(text)
    if not a.print:
        replace_between(ROOT / "docs" / "RESULTS.md", MARKER, text)


if __name__ == "__main__":
    main()
