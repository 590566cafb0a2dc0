#!/usr/bin/env python3
"""Regenerates the README's evaluation figures between their markers, all from fresh runs:

  sweep-runs   `discern sweep scenarios/quick.toml --runs 10 --controller newreno,quinn-bbr
               --baseline newreno`: the printed table (means, 95 % intervals, paired ratio)
  scoreboard   `discern score --runs N` over the default controllers: one row per controller from
               score.csv, and the heatmap copied to docs/results/score.png
  sim-speed    the simulator speed table of `cargo test --release -p discern-harness
               --test sim_speed -- --ignored --nocapture`

    scripts/readme_eval.py                    # all three, 10 seeds (minutes on 2 cores)
    scripts/readme_eval.py --only sweep-runs --runs 5
    scripts/readme_eval.py --only scoreboard --reuse   # re-tabulate out/readme-eval/score
"""

import argparse
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "discern"
POOLED = "random-loss (mean)"


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
    return f"```\n$ {shown}\n{table}\n```"


def cell(row, scale=1.0, digits=2):
    if row is None or row["n"] in ("", "0"):
        return "n/a"
    mean = float(row["mean"]) * scale
    if row["ci95_lo"] == "":
        return f"{mean:.{digits}f}"
    half = (float(row["ci95_hi"]) - float(row["ci95_lo"])) / 2 * scale
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


def scoreboard(args):
    out = Path(args.out) / "score"
    if not args.reuse:
        run([BINARY, "score", "--runs", str(args.runs), "--jobs", str(args.jobs), "--out",
             str(out)], stdout=subprocess.DEVNULL)
    rows = list(csv.DictReader(open(out / "score.csv", newline="")))
    by = {(r["controller"], r["class"], r["figure"]): r for r in rows}
    controllers = list(dict.fromkeys(r["controller"] for r in rows))
    classes = list(dict.fromkeys(r["class"] for r in rows if r["class"] != POOLED))
    columns = [(POOLED, "efficiency", "efficiency"), (POOLED, "vs_quinn_bbr", "× quinn-bbr"),
               (POOLED, "random_as_random", "rnd→rnd")]
    for c in classes:
        figures = {r["figure"] for r in rows if r["class"] == c}
        if "jain" in figures:
            columns.append((c, "jain", f"Jain {c}"))
            columns.append((c, "congestion_as_congestion", f"cong→cong {c}"))
        elif "peer_kept" in figures:
            columns.append((c, "peer_kept", f"kept {c}"))
    columns.append((POOLED, "queue_delay_p95_s", "p95 queue ms"))
    lines = [f"n = {args.runs} seeds per class; mean ± 95 % CI (Student's t). "
             "Definitions: [docs/evaluation.md](docs/evaluation.md).", "",
             "| controller | " + " | ".join(h for _, _, h in columns) + " |",
             "|---|" + "---|" * len(columns)]
    for ctl in controllers:
        cells = [cell(by.get((ctl, c, f)), 1e3, 1) if f == "queue_delay_p95_s"
                 else cell(by.get((ctl, c, f))) for c, f, _ in columns]
        lines.append(f"| `{ctl}` | " + " | ".join(cells) + " |")
    (ROOT / "docs" / "results").mkdir(parents=True, exist_ok=True)
    shutil.copy(out / "score.png", ROOT / "docs" / "results" / "score.png")
    return "\n".join(lines)


def sim_speed(args):
    out = run(["cargo", "test", "--release", "-q", "-p", "discern-harness", "--test", "sim_speed",
               "--", "--ignored", "--nocapture"], stdout=subprocess.PIPE).stdout
    table = [l for l in out.splitlines() if l.startswith("|")]
    return "\n".join(table)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=str(ROOT / "out" / "readme-eval"))
    ap.add_argument("--only", choices=["sweep-runs", "scoreboard", "sim-speed"])
    ap.add_argument("--reuse", action="store_true",
                    help="scoreboard: tabulate the last run's score.csv instead of running it")
    args = ap.parse_args()
    run(["cargo", "build", "--release", "-q", "-p", "discern-harness"])
    readme = ROOT / "README.md"
    for marker, make in [("sweep-runs", sweep_runs), ("scoreboard", scoreboard),
                         ("sim-speed", sim_speed)]:
        if args.only in (None, marker):
            replace_between(readme, marker, make(args))
            print(f"README.md: {marker} updated", file=sys.stderr)


if __name__ == "__main__":
    main()
