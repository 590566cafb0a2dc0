#!/usr/bin/env python3
"""Turns the criterion results of `cargo bench -p quinn-discern --bench controllers` into a table of
per-ACK and per-loss costs with ratios to quinn's NewReno and CUBIC, all from the same run.

    cargo bench -p quinn-discern --bench controllers && scripts/bench-table.py           # print
    cargo bench -p quinn-discern --bench controllers && scripts/bench-table.py --write   # README too
"""

import argparse
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def costs(root, group):
    out = {}
    for estimates in sorted((root / group).glob("*/new/estimates.json")):
        benchmark = json.loads((estimates.parent / "benchmark.json").read_text())
        out[benchmark["function_id"]] = json.loads(estimates.read_text())["median"]["point_estimate"]
    return out


def table(root):
    ack, loss = costs(root, "per-ack"), costs(root, "per-loss")
    standing = costs(root, "per-ack-standing-queue")
    newreno, cubic = ack["quinn-newreno"], ack["quinn-cubic"]
    lines = ["| controller | per ACK (ns) | vs quinn-newreno | vs quinn-cubic "
             "| per ACK, standing queue (ns) | per loss (ns) |",
             "|---|---|---|---|---|---|"]
    for name in sorted(ack, key=lambda n: (not n.startswith("quinn-"), n)):
        lines.append(f"| {name} | {ack[name]:.1f} | {ack[name] / newreno:.2f} | "
                     f"{ack[name] / cubic:.2f} | {standing[name]:.1f} | {loss[name]:.1f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("criterion", nargs="?", default=str(ROOT / "target" / "criterion"))
    ap.add_argument("--write", action="store_true", help="replace the README's cost table")
    args = ap.parse_args()
    text = table(pathlib.Path(args.criterion))
    print(text)
    if args.write:
        readme = ROOT / "README.md"
        doc = readme.read_text()
        begin, end = "<!-- BEGIN cost -->", "<!-- END cost -->"
        head, rest = doc.split(begin, 1)
        _, tail = rest.split(end, 1)
        readme.write_text(f"{head}{begin}\n{text}\n{end}{tail}")


if __name__ == "__main__":
    main()
