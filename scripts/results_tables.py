#!/usr/bin/env python3
"""Markdown tables for docs/RESULTS.md from the sweeps of scripts/results.sh.

usage: results_tables.py OUT_DIR RESULTS_MD [TABLE ...]

Reads OUT_DIR/<sweep>/sweep.csv and each run's runs/<index>-*/summary.json and flows.csv, and
replaces every block between `<!-- BEGIN name -->` and `<!-- END name -->` in RESULTS_MD with
the table `name` (only the named tables if any are given). Standard library only.
"""

import csv
import glob
import json
import os
import re
import sys

PEERS = ["quinn-newreno", "quinn-cubic", "quinn-bbr", "composite+quinn-cubic"]
TOLERANCES = ["0", "0.02", "0.05", "0.1", "0.2"]
MSACK = ["newreno"] + [f"modified-sack:tolerance={t}" for t in TOLERANCES]
PERS = ["0", "0.00001", "0.0001", "0.001", "0.01"]

# Paper 000, Tables 1-4: rows PER 0, 1e-5, 1e-4, 1e-3, 1e-2; columns SACK, then Modified SACK
# with tolerance 0, 2, 5, 10, 20 %.
PAPER_000 = {
    "t1-10s": [
        [12213] * 6,
        [12213] * 6,
        [12213] * 6,
        [7182, 11330, 11680, 11680, 11680, 11680],
        [2775, 7672, 9046, 9046, 9046, 9046],
    ],
    "t1-100s": [
        [124013] * 6,
        [123593] * 6,
        [120097] * 6,
        [86883, 119833, 120033, 120183, 120183, 120183],
        [28312, 91848, 96609, 96609, 96609, 96609],
    ],
    "t2-10s": [
        [1648, 1668, 1665, 1665, 1669, 1668],
        [1648, 1668, 1665, 1665, 1669, 1667],
        [1648, 1668, 1665, 1665, 1669, 1668],
        [1667, 1631, 1661, 1661, 1661, 1653],
        [1632, 1664, 1664, 1664, 1664, 1664],
    ],
    "t2-100s": [
        [16282, 16245, 16242, 16246, 16255, 16227],
        [16282, 16245, 16242, 16246, 16255, 16227],
        [16282, 16245, 16242, 16246, 16255, 16227],
        [16258, 16245, 16238, 16249, 16232, 16241],
        [16251, 16251, 16250, 16242, 16235, 16211],
    ],
}

# Paper 003, Tables 2-4: nodes -> (SACK, SACK-FeW).
PAPER_003 = {
    "throughput": {10: (169467.5, 167358.5), 20: (51384.75, 50651.5), 50: (22783, 28890.7),
                   100: (15782.45, 16428.72), 200: (2714.658, 4314.042)},
    "loss": {10: (0.09, 0.074), 20: (0.94, 1.048), 50: (1.53, 1.4), 100: (1.64, 1.48),
             200: (3.97, 2.77)},
    "retx": {10: (0.028, 0.0128), 20: (1.4075, 1.43), 50: (2.43, 2.57), 100: (2.72, 2.98),
             200: (4.94, 4.28)},
}

# Paper 004, Table 2 (error 0, 0.001, 0.01) and Table 3 (sender 1, sender 2, total).
PAPER_004_T2 = {"newreno": [24762, 15940, 6331], "reno": [24762, 16225, 5049],
                "composite": [24762, 24067, 12102]}
PAPER_004_T3 = {"newreno": [7274, 8983, 16257], "reno": [7366, 8728, 16094],
                "composite": [7220, 9039, 16259]}


class Sweep:
    """One sweep: its CSV rows and, per run, the summary and the per-flow time series path."""

    def __init__(self, out, name):
        self.dir = os.path.join(out, name)
        with open(os.path.join(self.dir, "sweep.csv"), newline="") as f:
            self.rows = list(csv.DictReader(f))
        self.run_dirs = {}
        for d in glob.glob(os.path.join(self.dir, "runs", "*")):
            index = int(os.path.basename(d).split("-", 1)[0])
            self.run_dirs[index] = d
        self.keys = [k for k in self.rows[0] if k not in ("run", "controller", "flows") and
                     not k.startswith(("goodput", "completion", "lost", "congestion_", "verdicts",
                                       "random_", "spurious", "verified"))]

    def find(self, controller=None, **values):
        """The summary of the one run with these varied values (matched by key suffix)."""
        for row in self.rows:
            if controller is not None and row["controller"] != controller:
                continue
            if all(row[self.key(k)] == v for k, v in values.items()):
                return self.summary(row)
        raise KeyError(f"{self.dir}: no run {controller} {values}")

    def key(self, suffix):
        suffix = suffix.replace("__", ".")
        for k in self.keys:
            if k == suffix or k.endswith("." + suffix):
                return k
        raise KeyError(f"{self.dir}: no key {suffix} in {self.keys}")

    def summary(self, row):
        d = self.run_dirs[int(row["run"])]
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        s["_dir"] = d
        return s


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def short(controller):
    return controller.replace("modified-sack:tolerance=", "MSACK ").replace("sack-few:alpha=", "FeW a=")


def pkts(s, flow=0):
    return s["flows"][flow]["packets_delivered"]


def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


def t000_topology1(out, which):
    sw = Sweep(out, f"000-{which}")
    paper = PAPER_000[which]
    controllers = MSACK + PEERS
    header = ["PER"] + [short(c) for c in controllers]
    rows = []
    for i, per in enumerate(PERS):
        row = [per]
        for j, c in enumerate(controllers):
            ours = pkts(sw.find(c, loss__rate=per))
            row.append(f"{ours} ({paper[i][j]})" if j < len(paper[i]) else str(ours))
        rows.append(row)
    # Ratio to the SACK baseline at each PER: ours (paper).
    for i, per in enumerate(PERS[3:], start=3):
        base = pkts(sw.find("newreno", loss__rate=per))
        row = [f"÷ SACK, PER {per}"]
        for j, c in enumerate(controllers):
            ours = pkts(sw.find(c, loss__rate=per)) / base
            row.append(f"{ours:.2f} ({paper[i][j] / paper[i][0]:.2f})" if j < 6 else f"{ours:.2f}")
        rows.append(row)
    return table(header, rows)


def t000_topology2(out, which):
    sw = Sweep(out, f"000-{which}")
    paper = PAPER_000[which]
    controllers = MSACK + PEERS
    header = ["PER"] + [short(c) for c in controllers]
    rows = []
    for i, per in enumerate(PERS):
        row = [per]
        for j, c in enumerate(controllers):
            ours = pkts(sw.find(None, loss__rate=per, **{"flow.0.controller": c}))
            row.append(f"{ours} ({paper[i][j]})" if j < 6 else str(ours))
        rows.append(row)
    row = ["flow 0 ÷ mean cross flow, PER 0.01"]
    for c in controllers:
        s = sw.find(None, loss__rate="0.01", **{"flow.0.controller": c})
        cross = [f["packets_delivered"] for f in s["flows"][1:]]
        row.append(f"{pkts(s) / (sum(cross) / len(cross)):.2f}")
    rows.append(row)
    row = ["flow 0 losses read as random, PER 0"]
    for c in controllers:
        s = sw.find(None, loss__rate="0", **{"flow.0.controller": c})
        v = s["flows"][0]["verdicts"]
        n = v["random"] + v["congestion"]
        row.append(f"{v['random']}/{n}")
    rows.append(row)
    return table(header, rows)


def mean_cwnd_packets(run_dir, mss=1472):
    """Mean congestion window over the transfer, in packets, from the 10 ms samples."""
    values = []
    with open(os.path.join(run_dir, "flows.csv"), newline="") as f:
        for r in csv.DictReader(f):
            values.append(int(r["cwnd_bytes"]))
    return sum(values) / len(values) / mss if values else 0.0


def t001(out):
    sw = Sweep(out, "001")
    controllers = ["tahoe", "modified-tahoe", "reno", "newreno"] + PEERS
    header = ["controller"] + [f"{d} drop{'s' if d != '1' else ''}: download s / mean cwnd (packets) / loss events"
                               for d in ["1", "4", "10"]]
    rows = []
    for c in controllers:
        row = [c]
        for d in ["1", "4", "10"]:
            s = sw.find(c, drops=d)
            f = s["flows"][0]
            row.append(f"{f['completion_time_s']:.2f} / {mean_cwnd_packets(s['_dir']):.1f} / "
                       f"{f['verdicts']['congestion']}")
        rows.append(row)
    return table(header, rows)


def goodput_table(out, name, key, values, controllers, label, base="newreno", extra_ratio="reno"):
    sw = Sweep(out, name)
    header = [label] + [short(c) for c in controllers] + [f"{controllers[0]} ÷ {base}",
                                                          f"{controllers[0]} ÷ {extra_ratio}"]
    rows = []
    for v in values:
        g = {c: sum(f["goodput_bps"] for f in sw.find(c, **{key: v})["flows"]) / 1e6
             for c in controllers}
        rows.append([v] + [f"{g[c]:.3f}" for c in controllers] +
                    [ratio(g[controllers[0]], g[base]), ratio(g[controllers[0]], g[extra_ratio])])
    return table(header, rows)


def t002_packets(out):
    sw = Sweep(out, "002-loss")
    rows = []
    for c in ["wnewreno", "newreno", "reno"] + PEERS:
        paper = {"wnewreno": "4265", "newreno": "4128"}.get(c, "-")
        rows.append([c, pkts(sw.find(c, loss__rate="0.03")), paper])
    return table(["controller", "packets delivered, 100 s, 3 % (ours)", "paper (Table 1)"], rows)


def t003(out):
    sw = Sweep(out, "003")
    controllers = ["newreno", "sack-few", "sack-few:alpha=0.1"] + PEERS
    header = ["flows (nodes)", "metric", "paper SACK", "paper SACK-FeW"] + [short(c) for c in controllers]
    rows = []
    for n in ["1", "2", "5", "10", "20"]:
        nodes = int(n) * 10
        stats = {}
        for c in controllers:
            s = sw.find(c, count=n)
            flows = s["flows"]
            delivered = sum(f["packets_delivered"] for f in flows)
            declared = sum(f["lost_packets"] for f in flows)
            dropped = s["drops"]["queue"] + s["drops"]["channel"]
            stats[c] = (sum(f["goodput_bps"] for f in flows) / len(flows),
                        100 * dropped / (delivered + dropped),
                        100 * declared / (delivered + declared))
        p = PAPER_003
        rows.append([f"{n} ({nodes})", "throughput per flow, kbit/s",
                     f"{p['throughput'][nodes][0] / 1e3:.1f}", f"{p['throughput'][nodes][1] / 1e3:.1f}"] +
                    [f"{stats[c][0] / 1e3:.1f}" for c in controllers])
        rows.append(["", "packet loss %", p["loss"][nodes][0], p["loss"][nodes][1]] +
                    [f"{stats[c][1]:.2f}" for c in controllers])
        rows.append(["", "retransmissions %", p["retx"][nodes][0], p["retx"][nodes][1]] +
                    [f"{stats[c][2]:.2f}" for c in controllers])
    return table(header, rows)


C004 = ["newreno", "reno", "composite", "modified-sack", "wnewreno"] + PEERS


def t004_errors_only(out):
    sw = Sweep(out, "004-errors-only")
    rates = ["0", "0.001", "0.01"]
    header = ["controller"] + [f"error {r}" for r in rates] + ["÷ SACK at 0.001", "÷ SACK at 0.01"]
    base = {r: pkts(sw.find("newreno", loss__rate=r)) for r in rates}
    rows = []
    for c in C004:
        ours = {r: pkts(sw.find(c, loss__rate=r)) for r in rates}
        paper = PAPER_004_T2.get(c)
        cells = [f"{ours[r]} ({paper[i]})" if paper else str(ours[r]) for i, r in enumerate(rates)]
        rs = [f"{ours[r] / base[r]:.2f}" + (f" ({paper[i] / PAPER_004_T2['newreno'][i]:.2f})" if paper else "")
              for i, r in list(enumerate(rates))[1:]]
        rows.append([c] + cells + rs)
    return table(header, rows)


def t004_congestion_only(out):
    sw = Sweep(out, "004-congestion-only")
    rows = []
    for c in C004:
        s = sw.find(c, seed="1")
        a, b = pkts(s, 0), pkts(s, 1)
        paper = PAPER_004_T3.get(c)
        fmt = (lambda o, i: f"{o} ({paper[i]})") if paper else (lambda o, i: str(o))
        rows.append([c, fmt(a, 0), fmt(b, 1), fmt(a + b, 2), f"{min(a, b) / max(a, b):.2f}",
                     s["drops"]["queue"]])
    return table(["controller", "sender 1", "sender 2", "total", "min ÷ max", "queue drops"], rows)


def t004_mixed(out, name="004-errors-and-congestion"):
    sw = Sweep(out, name)
    rates = ["0", "0.001", "0.01"]
    header = ["controller"] + [f"error {r}: total packets" for r in rates] + ["÷ SACK at 0.001", "÷ SACK at 0.01"]
    total = lambda c, r: sum(f["packets_delivered"] for f in sw.find(c, loss__rate=r)["flows"])
    rows = []
    for c in C004:
        ours = [total(c, r) for r in rates]
        rows.append([c] + [str(o) for o in ours] +
                    [f"{ours[i] / total('newreno', r):.2f}" for i, r in list(enumerate(rates))[1:]])
    return table(header, rows)


def verdicts(out):
    """Verdicts scored against the simulator's drop causes, per congestion event."""
    cases = [
        ("errors only (004, errors 0.001 + 0.01)", "004-errors-only", "loss__rate", ["0.001", "0.01"]),
        ("congestion only (004)", "004-congestion-only", "seed", ["1"]),
        ("errors + congestion (004 without window cap, errors 0.001 + 0.01)", "004-mixed-uncapped", "loss__rate", ["0.001", "0.01"]),
        ("errors only (000 topology I, PER 0.001 + 0.01)", "000-t1-100s", "loss__rate", ["0.001", "0.01"]),
    ]
    header = ["controller", "path", "random read as random", "congestion read as congestion"]
    rows = []
    for c in ["modified-sack", "wnewreno", "composite", "composite+quinn-cubic"]:
        for label, name, key, values in cases:
            sw = Sweep(out, name)
            ctrl = "modified-sack:tolerance=0.05" if (name.startswith("000") and c == "modified-sack") else c
            if name.startswith("000") and ctrl not in MSACK + PEERS:
                continue
            acc = {"random_as_random": 0, "random_as_congestion": 0,
                   "congestion_as_congestion": 0, "congestion_as_random": 0}
            for v in values:
                va = sw.find(ctrl, **{key: v})["verdict_accuracy"]
                for k in acc:
                    acc[k] += va[k]
            rr = acc["random_as_random"] + acc["random_as_congestion"]
            cc = acc["congestion_as_congestion"] + acc["congestion_as_random"]
            cell = lambda a, n: f"{100 * a / n:.0f} % ({a}/{n})" if n else "- (0/0)"
            rows.append([c, label, cell(acc["random_as_random"], rr),
                         cell(acc["congestion_as_congestion"], cc)])
    return table(header, rows)


def t_netns(out):
    """Real namespaces with kernel TCP peers; None (keep the committed table) without that sweep."""
    path = os.path.join(out, "netns-quick", "sweep.csv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rows = list(csv.DictReader(f))
    base = next(float(r["goodput_total_bps"]) for r in rows if r["controller"] == "newreno")
    return table(
        ["controller", "goodput Mbit/s", "÷ newreno", "lost packets", "verified"],
        [[r["controller"], f"{float(r['goodput_total_bps']) / 1e6:.2f}",
          ratio(float(r["goodput_total_bps"]), base), r["lost_packets"],
          "yes" if r["verified"] == "true" else "NO"] for r in rows],
    )


LINK_PATHS = [
    ("T-Mobile LTE, drop-tail 150", "links-lte-tmobile"),
    ("AT&T LTE driving, drop-tail 150", "links-lte-att"),
    ("T-Mobile LTE, CoDel 5 ms / 100 ms", "links-lte-tmobile-codel"),
]


def mean_sd(xs):
    n = len(xs)
    m = sum(xs) / n
    sd = (sum((x - m) ** 2 for x in xs) / (n - 1)) ** 0.5 if n > 1 else 0.0
    return m, sd


def t_links(out):
    """Every controller over the recorded LTE traces (and with CoDel), over several seeds; None
    (keep the committed table) when the sweeps were skipped because the traces are absent."""
    if not all(os.path.exists(os.path.join(out, name, "sweep.csv")) for _, name in LINK_PATHS):
        return None
    header = ["path", "controller", "runs (failed)", "goodput Mbit/s (mean ± sd)", "of trace capacity",
              "p95 queueing delay ms", "random read as random", "congestion read as congestion",
              "spurious loss decisions"]
    rows = []
    for label, name in LINK_PATHS:
        sw = Sweep(out, name)
        # The controllers the sweep ran (scripts/results.sh, LINKS), in its order.
        for c in dict.fromkeys(r["controller"] for r in sw.rows):
            mine = [r for r in sw.rows if r["controller"] == c]
            failed = [r for r in mine if r.get("error")]
            runs = [sw.summary(r) for r in mine if not r.get("error")]
            if not mine:
                continue
            if not runs:
                rows.append([label, c, f"{len(mine)} ({len(failed)})"] + ["-"] * 6)
                continue
            good = [sum(f["goodput_bps"] for f in s["flows"]) / 1e6 for s in runs]
            frac = [s["links"][0]["trace"]["goodput_fraction"] for s in runs]
            p95 = [s["links"][0]["queue_delay"]["p95_s"] * 1e3 for s in runs]
            acc = {k: sum(s["verdict_accuracy"][k] for s in runs) for k in
                   ["random_as_random", "random_as_congestion", "congestion_as_congestion",
                    "congestion_as_random", "spurious"]}
            rr = acc["random_as_random"] + acc["random_as_congestion"]
            cc = acc["congestion_as_congestion"] + acc["congestion_as_random"]
            cell = lambda a, n: f"{100 * a / n:.0f} % ({a}/{n})" if n else "- (0/0)"
            g, gsd = mean_sd(good)
            f, fsd = mean_sd(frac)
            q, qsd = mean_sd(p95)
            rows.append([label, c, f"{len(mine)} ({len(failed)})", f"{g:.2f} ± {gsd:.2f}", f"{f:.2f} ± {fsd:.2f}",
                         f"{q:.0f} ± {qsd:.0f}", cell(acc["random_as_random"], rr),
                         cell(acc["congestion_as_congestion"], cc), acc["spurious"]])
    return table(header, rows)


def tables(out):
    ctl002 = ["wnewreno", "newreno", "reno"] + PEERS
    return {
        "000-t1-10s": lambda: t000_topology1(out, "t1-10s"),
        "000-t1-100s": lambda: t000_topology1(out, "t1-100s"),
        "000-t2-10s": lambda: t000_topology2(out, "t2-10s"),
        "000-t2-100s": lambda: t000_topology2(out, "t2-100s"),
        "001": lambda: t001(out),
        "002-loss": lambda: goodput_table(out, "002-loss", "loss__rate",
                                          ["0.01", "0.03", "0.05", "0.07", "0.1", "0.15"], ctl002, "loss"),
        "002-packets": lambda: t002_packets(out),
        "002-bandwidth": lambda: goodput_table(out, "002-bandwidth", "wireless__rate",
                                               ["1Mbit", "2Mbit", "3Mbit", "5Mbit", "7Mbit", "9Mbit", "11Mbit"],
                                               ctl002, "wireless rate"),
        "002-three": lambda: goodput_table(out, "002-three", "loss__rate",
                                           ["0.01", "0.03", "0.05", "0.07", "0.1", "0.15"], ctl002, "loss"),
        "003": lambda: t003(out),
        "004-errors-only": lambda: t004_errors_only(out),
        "004-congestion-only": lambda: t004_congestion_only(out),
        "004-errors-and-congestion": lambda: t004_mixed(out),
        "004-mixed-uncapped": lambda: t004_mixed(out, "004-mixed-uncapped"),
        "verdicts": lambda: verdicts(out),
        "netns": lambda: t_netns(out),
        "links": lambda: t_links(out),
    }


def main():
    out, doc, only = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    makers = tables(out)
    with open(doc) as f:
        text = f.read()

    def replace(m):
        name = m.group(1)
        if name.startswith("discern-"):
            # The scoreboard's tables: scripts/readme_eval.py writes them.
            return m.group(0)
        if name not in makers:
            raise SystemExit(f"{doc}: unknown table {name}")
        if only and name not in only:
            return m.group(0)
        made = makers[name]()
        if made is None:
            return m.group(0)
        return f"<!-- BEGIN {name} -->\n{made}\n<!-- END {name} -->"

    text, n = re.subn(r"<!-- BEGIN (\S+) -->.*?<!-- END \1 -->", replace, text, flags=re.S)
    with open(doc, "w") as f:
        f.write(text)
    print(f"{doc}: {n} tables")


if __name__ == "__main__":
    main()
