#!/usr/bin/env python3
"""Turns the criterion results of `cargo bench -p discern --bench controllers` into a table of
per-ACK and per-loss costs with ratios to quinn's NewReno, all from the same run."""

import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def costs(group):
    out = {}
    for estimates in sorted((root / group).glob("*/new/estimates.json")):
        benchmark = json.loads((estimates.parent / "benchmark.json").read_text())
        out[benchmark["function_id"]] = json.loads(estimates.read_text())["median"]["point_estimate"]
    return out


ack, loss = costs("per-ack"), costs("per-loss")
base_ack, base_loss = ack["quinn-newreno"], loss["quinn-newreno"]
print("| controller | per ACK (ns) | vs quinn-newreno | per loss (ns) | vs quinn-newreno |")
print("|---|---|---|---|---|")
for name in sorted(ack, key=lambda n: (not n.startswith("quinn-"), n)):
    print(f"| {name} | {ack[name]:.1f} | {ack[name] / base_ack:.2f} | {loss[name]:.1f} | {loss[name] / base_loss:.2f} |")
