#!/usr/bin/env python3
"""Markdown tables for docs/RESULTS.md from the sweeps of scripts/results.sh.

usage: results_tables.py OUT_DIR RESULTS_MD [TABLE ...]
       results_tables.py --check RESULTS_MD   (every table in it has a script that writes it)

Reads OUT_DIR/<sweep>/runs.csv (one row per run of a `--runs N` sweep; sweep.csv for a
`--vary seed=...` sweep) and each run's runs/<index>-*/summary.json and flows.csv, and replaces
every block between `<!-- BEGIN name -->` and `<!-- END name -->` in RESULTS_MD with the table
`name` (only the named tables if any are given). Every cell is the mean over the seeds ± the
half-width of its 95 % confidence interval (Student's t), ratios between controllers are paired
per seed, and the verdict on each paper's claim (`claims`, `verdict-NNN`) is decided here from
those intervals. The harness's own means and intervals in sweep.csv are checked against the
runs'. Standard library only.
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


# Two-sided 95 % quantiles t(0.975, df) of Student's t for df = 1..30, and beyond the table,
# interpolated linearly in 1/df: the same as harness/src/stats.rs, so a mean ± CI here and in
# sweep.csv agree.
T_975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010,
         2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739,
         2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423]
T_975_TAIL = [(30.0, 2.0423), (40.0, 2.0211), (60.0, 2.0003), (120.0, 1.9799)]
Z_975 = 1.959964

# Verdicts on a claim that one controller delivers more than another (or the same): the paired
# ratio's 95 % interval against 1, and against this band for "no difference".
EQUAL_BAND = 0.02
# Paper 002's "plateau": more than twice the link rate buys less than this much more goodput.
PLATEAU = 0.10


def t_975(df):
    if df <= len(T_975):
        return T_975[df - 1]
    x = 1.0 / df
    for (d0, t0), (d1, t1) in zip(T_975_TAIL, T_975_TAIL[1:]):
        if df <= d1:
            x0, x1 = 1.0 / d0, 1.0 / d1
            return t0 + (t1 - t0) * (x - x0) / (x1 - x0)
    d0, t0 = T_975_TAIL[-1]
    return Z_975 + (t0 - Z_975) * x * d0


class Est:
    """n, mean, sample standard deviation and the 95 % CI half-width (Student's t) of values."""

    def __init__(self, values):
        values = list(values)
        self.n = len(values)
        self.mean = sum(values) / self.n if values else float("nan")
        if self.n > 1:
            self.sd = (sum((v - self.mean) ** 2 for v in values) / (self.n - 1)) ** 0.5
            self.half = t_975(self.n - 1) * self.sd / self.n ** 0.5
        else:
            self.sd = self.half = None

    @property
    def lo(self):
        return self.mean - (self.half or 0.0)

    @property
    def hi(self):
        return self.mean + (self.half or 0.0)

    def fmt(self, digits, scale=1.0):
        if self.n == 0:
            return "-"
        if self.half is None:
            return f"{self.mean * scale:.{digits}f}"
        return f"{self.mean * scale:.{digits}f} ± {self.half * scale:.{digits}f}"

    def interval(self, digits):
        """`lo-hi`, the CI's ends, for prose."""
        return f"{self.lo:.{digits}f}-{self.hi:.{digits}f}"


def above(ratio):
    """"A delivers more than B" from the paired ratio A / B: its interval against 1."""
    if ratio.n < 2:
        return "not resolved"
    if ratio.hi < 1.0 or (ratio.lo >= 1.0 - EQUAL_BAND and ratio.hi <= 1.0 + EQUAL_BAND):
        # Below 1, or too close to 1 to be the gain a paper claims.
        return "does not hold"
    if ratio.lo > 1.0:
        return "holds"
    return "not resolved"


def equal(ratio):
    """"A is at par with B" from the paired ratio A / B: its interval inside 1 ± EQUAL_BAND."""
    if ratio.n < 2:
        return "not resolved"
    if ratio.lo >= 1.0 - EQUAL_BAND and ratio.hi <= 1.0 + EQUAL_BAND:
        return "holds"
    if ratio.lo > 1.0 + EQUAL_BAND or ratio.hi < 1.0 - EQUAL_BAND:
        return "does not hold"
    return "not resolved"


def combine(verdicts):
    """One verdict from several parts: all alike, or "partly" when some hold and some do not."""
    verdicts = list(verdicts)
    if all(v == verdicts[0] for v in verdicts):
        return verdicts[0]
    if "holds" in verdicts and "does not hold" in verdicts:
        return "partly"
    if "holds" in verdicts:
        return "holds in part, rest not resolved"
    return "does not hold in part, rest not resolved"


class Sweep:
    """One sweep of repeated runs (`--runs N` or `--vary seed=...`): every run's varied values,
    controller, seed and summary, grouped into points that differ only in their seed."""

    def __init__(self, out, name):
        self.name = name
        self.dir = os.path.join(out, name)
        path = os.path.join(self.dir, "runs.csv")
        if not os.path.exists(path):
            # `--vary seed=...` sweeps write one row per run into sweep.csv.
            path = os.path.join(self.dir, "sweep.csv")
        if not os.path.exists(path):
            raise SystemExit(f"{self.dir}: no runs.csv or sweep.csv; run scripts/results.sh first")
        with open(path, newline="") as f:
            self.rows = list(csv.DictReader(f))
        header = list(self.rows[0])
        self.keys = header[1:header.index("controller")]
        self.run_dirs = {}
        for d in glob.glob(os.path.join(self.dir, "runs", "*")):
            index = int(os.path.basename(d).split("-", 1)[0])
            self.run_dirs[index] = d
        self._summaries = {}
        self.check_against_sweep_csv()

    def check_against_sweep_csv(self):
        """The harness's own means (sweep.csv of `--runs`) must be what the summaries give: a
        mismatch means the runs on disk are not the sweep's, and every table would be wrong."""
        path = os.path.join(self.dir, "sweep.csv")
        if not os.path.exists(os.path.join(self.dir, "runs.csv")):
            return
        with open(path, newline="") as f:
            for cond in csv.DictReader(f):
                if not cond.get("goodput_total_bps_mean"):
                    continue
                values = {k: cond[k] for k in self.keys if k != "seed"}
                mine = self.est(lambda s: sum(fl["goodput_bps"] for fl in s["flows"]),
                                cond["controller"], **values)
                theirs = float(cond["goodput_total_bps_mean"])
                close = lambda a, b: abs(a - b) <= 1e-6 * max(1.0, abs(b))
                same = mine.n == int(cond["goodput_total_bps_n"]) and close(mine.mean, theirs)
                if same and mine.half is not None:
                    # The same interval, so the t quantiles here are the harness's.
                    same = (close(mine.lo, float(cond["goodput_total_bps_ci95_lo"])) and
                            close(mine.hi, float(cond["goodput_total_bps_ci95_hi"])))
                if not same:
                    raise SystemExit(f"{path}: {cond['controller']} {values}: goodput {theirs} "
                                     f"[{cond['goodput_total_bps_ci95_lo']}, "
                                     f"{cond['goodput_total_bps_ci95_hi']}] in sweep.csv, {mine.mean} "
                                     f"[{mine.lo}, {mine.hi}] (n {mine.n}) from the runs")

    def key(self, suffix):
        suffix = suffix.replace("__", ".")
        for k in self.keys + ["controller"]:
            if k == suffix or k.endswith("." + suffix):
                return k
        raise KeyError(f"{self.dir}: no key {suffix} in {self.keys}")

    def select(self, controller=None, **values):
        """The rows of one point, failed ones included."""
        want = {self.key(k): v for k, v in values.items()}
        if controller is not None:
            want["controller"] = controller
        rows = [r for r in self.rows if all(r[k] == v for k, v in want.items())]
        if not rows:
            raise KeyError(f"{self.dir}: no run {controller} {values}")
        return rows

    def seed_of(self, row):
        # A sweep of one run per point (no `--runs`, no `--vary seed`) names the seed only in the
        # run's summary.
        return int(row.get("seed") or self.summary(row)["seed"])

    def summary(self, row):
        index = int(row["run"])
        if index not in self._summaries:
            d = self.run_dirs[index]
            with open(os.path.join(d, "summary.json")) as f:
                s = json.load(f)
            s["_dir"] = d
            self._summaries[index] = s
        return self._summaries[index]

    def runs(self, controller=None, **values):
        """{seed: summary} of the point's runs that finished."""
        return {self.seed_of(r): self.summary(r) for r in self.select(controller, **values)
                if not r.get("error")}

    def failed(self, controller=None, **values):
        return sum(1 for r in self.select(controller, **values) if r.get("error"))

    def per_seed(self, figure, controller=None, **values):
        return {seed: figure(s) for seed, s in self.runs(controller, **values).items()}

    def est(self, figure, controller=None, **values):
        return Est(self.per_seed(figure, controller, **values).values())

    def paired(self, figure, a, b):
        """The paired ratio figure(A) / figure(B) over the seeds both ran; a and b are
        (controller, values) selections."""
        fa = self.per_seed(figure, a[0], **a[1])
        fb = self.per_seed(figure, b[0], **b[1])
        return Est(fa[s] / fb[s] for s in sorted(fa) if s in fb and fb[s])

    def n_line(self):
        """The table's footnote: runs per point, and the failed runs if any."""
        points = {}
        for r in self.rows:
            point = tuple(r[k] for k in self.keys + ["controller"] if k != "seed")
            points.setdefault(point, [0, 0])
            points[point][1 if r.get("error") else 0] += 1
        ok = sorted({v[0] for v in points.values()})
        failed = sum(v[1] for v in points.values())
        n = str(ok[0]) if len(ok) == 1 else f"{ok[0]}-{ok[-1]}"
        text = f"n = {n} seeds per point; mean ± 95 % CI (Student's t)."
        if failed:
            text += f" {failed} runs failed (named in {self.name}.log)."
        return text


def table(header, rows, note=None):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    if note:
        lines += ["", note]
    return "\n".join(lines)


def short(controller):
    return controller.replace("modified-sack:tolerance=", "MSACK ").replace("sack-few:alpha=", "FeW a=")


def pkts(flow=0):
    return lambda s: s["flows"][flow]["packets_delivered"]


def total_pkts(s):
    return sum(f["packets_delivered"] for f in s["flows"])


def total_mbit(s):
    return sum(f["goodput_bps"] for f in s["flows"]) / 1e6


def t000_topology1(out, which):
    sw = Sweep(out, f"000-{which}")
    paper = PAPER_000[which]
    controllers = MSACK + PEERS
    header = ["PER"] + [short(c) for c in controllers]
    rows = []
    for i, per in enumerate(PERS):
        row = [per]
        for j, c in enumerate(controllers):
            ours = sw.est(pkts(), c, loss__rate=per).fmt(0)
            row.append(f"{ours} ({paper[i][j]})" if j < len(paper[i]) else ours)
        rows.append(row)
    # Paired ratio to the SACK baseline at each PER: ours (paper).
    for i, per in enumerate(PERS[3:], start=3):
        row = [f"÷ SACK, PER {per}"]
        for j, c in enumerate(controllers):
            ours = sw.paired(pkts(), (c, {"loss__rate": per}), ("newreno", {"loss__rate": per})).fmt(2)
            row.append(f"{ours} ({paper[i][j] / paper[i][0]:.2f})" if j < 6 else ours)
        rows.append(row)
    return table(header, rows, sw.n_line() + " \"÷ SACK\" is the paired ratio (per seed).")


def t000_topology2(out, which):
    sw = Sweep(out, f"000-{which}")
    paper = PAPER_000[which]
    controllers = MSACK + PEERS
    header = ["PER"] + [short(c) for c in controllers]
    at = lambda c, per: {"loss__rate": per, "flow.0.controller": c}
    rows = []
    for i, per in enumerate(PERS):
        row = [per]
        for j, c in enumerate(controllers):
            ours = sw.est(pkts(), None, **at(c, per)).fmt(0)
            row.append(f"{ours} ({paper[i][j]})" if j < 6 else ours)
        rows.append(row)
    row = ["flow 0 ÷ mean cross flow, PER 0.01"]

    def share(s):
        cross = [f["packets_delivered"] for f in s["flows"][1:]]
        return s["flows"][0]["packets_delivered"] / (sum(cross) / len(cross))

    for c in controllers:
        row.append(sw.est(share, None, **at(c, "0.01")).fmt(2))
    rows.append(row)
    row = ["flow 0 losses read as random, PER 0 (%)"]

    def random_pct(s):
        v = s["flows"][0]["verdicts"]
        return 100 * v["random"] / (v["random"] + v["congestion"])

    for c in controllers:
        row.append(sw.est(random_pct, None, **at(c, "0")).fmt(0))
    rows.append(row)
    return table(header, rows, sw.n_line())


def mean_cwnd_packets(run_dir, mss=1472):
    """Mean congestion window over the transfer, in packets, from the 10 ms samples."""
    values = []
    with open(os.path.join(run_dir, "flows.csv"), newline="") as f:
        for r in csv.DictReader(f):
            values.append(int(r["cwnd_bytes"]))
    return sum(values) / len(values) / mss if values else 0.0


C001 = ["tahoe", "modified-tahoe", "reno", "newreno"] + PEERS
DROPS = ["1", "4", "10"]


def t001(out):
    sw = Sweep(out, "001")
    header = ["controller"] + [f"{d} drop{'s' if d != '1' else ''}: download s / mean cwnd (packets) / loss events"
                               for d in DROPS]
    rows = []
    for c in C001:
        row = [c]
        for d in DROPS:
            t = sw.est(lambda s: s["flows"][0]["completion_time_s"], c, drops=d)
            w = sw.est(lambda s: mean_cwnd_packets(s["_dir"]), c, drops=d)
            e = sw.est(lambda s: s["flows"][0]["verdicts"]["congestion"], c, drops=d)
            row.append(f"{t.fmt(2)} / {w.fmt(1)} / {e.fmt(0)}")
        rows.append(row)
    return table(header, rows, sw.n_line())


def goodput_table(out, name, key, values, controllers, label, base="newreno", extra_ratio="reno"):
    sw = Sweep(out, name)
    header = [label] + [short(c) for c in controllers] + [f"{controllers[0]} ÷ {base}",
                                                          f"{controllers[0]} ÷ {extra_ratio}"]
    rows = []
    for v in values:
        at = {key: v}
        rows.append([v] + [sw.est(total_mbit, c, **at).fmt(3) for c in controllers] +
                    [sw.paired(total_mbit, (controllers[0], at), (b, at)).fmt(2)
                     for b in (base, extra_ratio)])
    return table(header, rows, sw.n_line() + " Ratios are paired (per seed).")


C002 = ["wnewreno", "newreno", "reno"] + PEERS


def t002_packets(out):
    sw = Sweep(out, "002-loss")
    rows = []
    for c in C002:
        paper = {"wnewreno": "4265", "newreno": "4128"}.get(c, "-")
        rows.append([c, sw.est(pkts(), c, loss__rate="0.03").fmt(0), paper])
    return table(["controller", "packets delivered, 100 s, 3 % (ours)", "paper (Table 1)"], rows,
                 sw.n_line())


C003 = ["newreno", "sack-few", "sack-few:alpha=0.1"] + PEERS
FLOWS_003 = ["1", "2", "5", "10", "20"]


def per_flow_kbit(s):
    return sum(f["goodput_bps"] for f in s["flows"]) / len(s["flows"]) / 1e3


def loss_pct(s):
    """Packets dropped (queue + channel) per packet that reached the receiver or was dropped."""
    delivered = total_pkts(s)
    dropped = s["drops"]["queue"] + s["drops"]["channel"]
    return 100 * dropped / (delivered + dropped)


def retx_pct(s):
    """Packets quinn declared lost (each one's data re-sent) per delivered + declared lost."""
    delivered = total_pkts(s)
    declared = sum(f["lost_packets"] for f in s["flows"])
    return 100 * declared / (delivered + declared)


def t003(out):
    sw = Sweep(out, "003")
    header = ["flows (nodes)", "metric", "paper SACK", "paper SACK-FeW"] + [short(c) for c in C003]
    rows = []
    p = PAPER_003
    for n in FLOWS_003:
        nodes = int(n) * 10
        rows.append([f"{n} ({nodes})", "throughput per flow, kbit/s",
                     f"{p['throughput'][nodes][0] / 1e3:.1f}", f"{p['throughput'][nodes][1] / 1e3:.1f}"] +
                    [sw.est(per_flow_kbit, c, count=n).fmt(1) for c in C003])
        rows.append(["", "packet loss %", p["loss"][nodes][0], p["loss"][nodes][1]] +
                    [sw.est(loss_pct, c, count=n).fmt(2) for c in C003])
        rows.append(["", "retransmissions %", p["retx"][nodes][0], p["retx"][nodes][1]] +
                    [sw.est(retx_pct, c, count=n).fmt(2) for c in C003])
    return table(header, rows, sw.n_line())


C004 = ["newreno", "reno", "composite", "modified-sack", "wnewreno"] + PEERS
RATES_004 = ["0", "0.001", "0.01"]


def t004_errors_only(out):
    sw = Sweep(out, "004-errors-only")
    header = ["controller"] + [f"error {r}" for r in RATES_004] + ["÷ SACK at 0.001", "÷ SACK at 0.01"]
    rows = []
    for c in C004:
        paper = PAPER_004_T2.get(c)
        cells = []
        for i, r in enumerate(RATES_004):
            ours = sw.est(pkts(), c, loss__rate=r).fmt(0)
            cells.append(f"{ours} ({paper[i]})" if paper else ours)
        for i, r in list(enumerate(RATES_004))[1:]:
            ours = sw.paired(pkts(), (c, {"loss__rate": r}), ("newreno", {"loss__rate": r})).fmt(2)
            cells.append(ours + (f" ({paper[i] / PAPER_004_T2['newreno'][i]:.2f})" if paper else ""))
        rows.append([c] + cells)
    return table(header, rows, sw.n_line() + " \"÷ SACK\" is the paired ratio (per seed).")


def t004_congestion_only(out):
    sw = Sweep(out, "004-congestion-only")
    rows = []
    for c in C004:
        paper = PAPER_004_T3.get(c)
        cells = [sw.est(f, c).fmt(0) for f in (pkts(0), pkts(1), total_pkts)]
        if paper:
            cells = [f"{o} ({paper[i]})" for i, o in enumerate(cells)]
        fairness = sw.est(lambda s: min(pkts(0)(s), pkts(1)(s)) / max(pkts(0)(s), pkts(1)(s)), c)
        drops = sw.est(lambda s: s["drops"]["queue"], c)
        rows.append([c] + cells + [fairness.fmt(2), drops.fmt(0)])
    return table(["controller", "sender 1", "sender 2", "total", "min ÷ max", "queue drops"], rows,
                 sw.n_line())


def t004_mixed(out, name="004-errors-and-congestion"):
    sw = Sweep(out, name)
    header = ["controller"] + [f"error {r}: total packets" for r in RATES_004] + ["÷ SACK at 0.001", "÷ SACK at 0.01"]
    rows = []
    for c in C004:
        rows.append([c] + [sw.est(total_pkts, c, loss__rate=r).fmt(0) for r in RATES_004] +
                    [sw.paired(total_pkts, (c, {"loss__rate": r}), ("newreno", {"loss__rate": r})).fmt(2)
                     for r in RATES_004[1:]])
    return table(header, rows, sw.n_line() + " \"÷ SACK\" is the paired ratio (per seed).")


ACCURACY = ["random_as_random", "random_as_congestion", "congestion_as_congestion", "congestion_as_random"]


def accuracy_cell(runs, right, wrong):
    """Per-seed share of one kind of loss read right, mean ± CI in %, over the seeds that had
    that kind of loss, and the counts summed over all seeds."""
    shares, a, n = [], 0, 0
    for s in runs:
        va = s["verdict_accuracy"]
        if va[right] + va[wrong]:
            shares.append(100 * va[right] / (va[right] + va[wrong]))
        a += va[right]
        n += va[right] + va[wrong]
    if not n:
        return "- (0/0)"
    return f"{Est(shares).fmt(0)} % ({a}/{n})"


def verdicts(out):
    """Verdicts scored against the simulator's drop causes, per congestion event."""
    cases = [
        ("errors only (004, errors 0.001 + 0.01)", "004-errors-only", "loss__rate", ["0.001", "0.01"]),
        ("congestion only (004)", "004-congestion-only", None, [None]),
        ("errors + congestion (004 without window cap, errors 0.001 + 0.01)", "004-mixed-uncapped", "loss__rate", ["0.001", "0.01"]),
        ("errors only (000 topology I, PER 0.001 + 0.01)", "000-t1-100s", "loss__rate", ["0.001", "0.01"]),
    ]
    header = ["controller", "path", "random read as random", "congestion read as congestion"]
    rows = []
    ns = set()
    for c in ["modified-sack", "wnewreno", "composite", "composite+quinn-cubic"]:
        for label, name, key, values in cases:
            sw = Sweep(out, name)
            ctrl = "modified-sack:tolerance=0.05" if (name.startswith("000") and c == "modified-sack") else c
            if name.startswith("000") and ctrl not in MSACK + PEERS:
                continue
            runs = []
            for v in values:
                sel = {key: v} if key else {}
                got = sw.runs(ctrl, **sel)
                ns.add(len(got))
                runs += got.values()
            rows.append([c, label, accuracy_cell(runs, "random_as_random", "random_as_congestion"),
                         accuracy_cell(runs, "congestion_as_congestion", "congestion_as_random")])
    n = "-".join(str(x) for x in sorted({min(ns), max(ns)}))
    return table(header, rows, f"n = {n} seeds per point; where two error rates are named, the runs "
                 "of both points make one mean. Per run, the share read right; mean ± 95 % CI "
                 "(Student's t); in brackets the counts summed over the runs.")


C_NETNS = ["newreno", "composite", "wnewreno", "modified-sack", "quinn-cubic", "composite+quinn-cubic",
           "tcp-reno", "tcp-cubic", "tcp-bbr"]


def t_netns(out):
    """Real namespaces with kernel TCP peers; None (keep the committed table) without that sweep."""
    if not os.path.exists(os.path.join(out, "netns-quick", "sweep.csv")):
        return None
    sw = Sweep(out, "netns-quick")
    rows = []
    for c in dict.fromkeys(r["controller"] for r in sw.rows):
        mine = sw.select(c)
        good = sw.est(total_mbit, c)
        rows.append([c, good.fmt(2),
                     sw.paired(total_mbit, (c, {}), ("newreno", {})).fmt(2),
                     sw.est(lambda s: sum(f["lost_packets"] for f in s["flows"]), c).fmt(0),
                     f"{sum(1 for r in mine if r.get('verified') == 'true')}/{len(mine)}"])
    made = table(["controller", "goodput Mbit/s", "÷ newreno (paired)", "lost packets", "runs verified"],
                 rows, sw.n_line())
    reno = sw.paired(total_mbit, ("tcp-reno", {}), ("newreno", {}))
    cubic = sw.paired(total_mbit, ("tcp-cubic", {}), ("tcp-reno", {}))
    means = {c: sw.est(total_mbit, c) for c in dict.fromkeys(r["controller"] for r in sw.rows)}
    best = max(means, key=lambda c: means[c].mean)
    quic = max((c for c in means if not c.startswith("tcp-")), key=lambda c: means[c].mean)
    checks = [
        f"- Kernel TCP Reno ÷ our QUIC `newreno`: {reno.fmt(2)}x; equal (within 1 ± "
        f"{EQUAL_BAND:.2f}): **{equal(reno)}**.",
        f"- Kernel CUBIC ÷ kernel Reno: {cubic.fmt(2)}x; CUBIC more than Reno: **{above(cubic)}**.",
        f"- Most goodput: `{best}` ({means[best].fmt(2)} Mbit/s); among the QUIC controllers `{quic}` "
        f"({means[quic].fmt(2)} Mbit/s).",
    ]
    return made + "\n\n" + "\n".join(checks)


LINK_PATHS = [
    ("T-Mobile LTE, drop-tail 150", "links-lte-tmobile"),
    ("AT&T LTE driving, drop-tail 150", "links-lte-att"),
    ("T-Mobile LTE, CoDel 5 ms / 100 ms", "links-lte-tmobile-codel"),
]


def t_links(out):
    """Every controller over the recorded LTE traces (and with CoDel), over several seeds; None
    (keep the committed table) when the sweeps were skipped because the traces are absent."""
    if not all(os.path.exists(os.path.join(out, name, "sweep.csv")) for _, name in LINK_PATHS):
        return None
    header = ["path", "controller", "runs (failed)", "goodput Mbit/s", "of trace capacity",
              "p95 queueing delay ms", "random read as random", "congestion read as congestion",
              "spurious loss decisions"]
    rows = []
    for label, name in LINK_PATHS:
        sw = Sweep(out, name)
        # The controllers the sweep ran (scripts/results.sh, LINKS), in its order.
        for c in dict.fromkeys(r["controller"] for r in sw.rows):
            mine = sw.select(c)
            runs = list(sw.runs(c).values())
            count = f"{len(mine)} ({len(mine) - len(runs)})"
            if not runs:
                rows.append([label, c, count] + ["-"] * 6)
                continue
            good = Est(total_mbit(s) for s in runs)
            frac = Est(s["links"][0]["trace"]["goodput_fraction"] for s in runs)
            p95 = Est(s["links"][0]["queue_delay"]["p95_s"] * 1e3 for s in runs)
            spurious = sum(s["verdict_accuracy"]["spurious"] for s in runs)
            rows.append([label, c, count, good.fmt(2), frac.fmt(2), p95.fmt(0),
                         accuracy_cell(runs, "random_as_random", "random_as_congestion"),
                         accuracy_cell(runs, "congestion_as_congestion", "congestion_as_random"),
                         spurious])
    return table(header, rows, "n = the runs that finished (column \"runs\"); mean ± 95 % CI "
                 "(Student's t); verdicts: per seed share read right, mean ± CI, and the counts "
                 "summed over the runs.")


def span(ests, digits=2, unit="x"):
    """The lowest and highest of some estimates, each with its interval, for a claim's evidence."""
    ests = sorted(ests, key=lambda e: e.mean)
    lo, hi = ests[0], ests[-1]
    if lo is hi or (lo.fmt(digits) == hi.fmt(digits)):
        return f"{lo.fmt(digits)}{unit}"
    return f"{lo.fmt(digits)}{unit} to {hi.fmt(digits)}{unit}"


def size(ratio, paper):
    """How our paired ratio compares with the paper's: its interval against the paper's value."""
    if ratio.lo > paper:
        return "larger than the paper's"
    if ratio.hi < paper:
        return "smaller than the paper's"
    return "as the paper's"


class Claim:
    def __init__(self, paper, claim, verdict, evidence):
        self.paper, self.claim, self.verdict, self.evidence = paper, claim, verdict, evidence


def claims_000(out):
    t1 = {w: Sweep(out, f"000-{w}") for w in ("t1-100s", "t1-10s")}
    msack = MSACK[1:]
    ratio = lambda sw, c, per: sw.paired(pkts(), (c, {"loss__rate": per}), ("newreno", {"loss__rate": per}))
    found = []
    for which, label, paper in (("t1-100s", "100 s (Table 2)", "1.38x and 3.24-3.41x"),
                                ("t1-10s", "10 s (Table 1)", "1.58-1.63x and 2.76-3.26x")):
        sw = t1[which]
        r1 = [ratio(sw, c, "0.001") for c in msack]
        r2 = [ratio(sw, c, "0.01") for c in msack]
        found.append(Claim(
            "000", f"Modified SACK delivers more than SACK at PER 0.001 and 0.01 over {label}; "
                   f"paper {paper}",
            combine(above(r) for r in r1 + r2),
            f"÷ SACK over tolerances 0-20 %: {span(r1)} at 0.001, {span(r2)} at 0.01"))
    low = {per: [ratio(sw, c, per) for sw in t1.values() for c in msack] for per in ("0.00001", "0.0001")}
    found.append(Claim("000", "no difference at PER <= 0.0001",
                       combine(equal(r) for rs in low.values() for r in rs),
                       "; ".join(f"÷ SACK at {per} {span(rs)}" for per, rs in low.items()) +
                       " (10 s and 100 s, tolerances 0-20 %)"))
    sw = Sweep(out, "000-t2-100s")
    at = lambda c, per: (None, {"loss__rate": per, "flow.0.controller": c})
    rs = [sw.paired(pkts(), at(c, per), at("newreno", per)) for c in msack for per in PERS]
    r0 = [sw.paired(pkts(), at(c, "0"), at("newreno", "0")) for c in msack]
    found.append(Claim("000", "under congestion + errors Modified SACK delivers what SACK does "
                              "(Tables 3-4, within 0.13 %)",
                       combine(equal(r) for r in rs),
                       f"flow 0 ÷ a SACK flow 0 at PER 0, 100 s: {span(r0)}"))
    return found


def claims_001(out):
    sw = Sweep(out, "001")
    time = lambda s: s["flows"][0]["completion_time_s"]
    slower = lambda a, b, d: sw.paired(time, (a, {"drops": d}), (b, {"drops": d}))
    r = [slower("tahoe", "modified-tahoe", d) for d in DROPS]
    t = {c: sw.est(time, c, drops="4") for c in C001}
    found = [Claim("001", "Modified Tahoe downloads faster than Tahoe (Figs. 9-10)",
                   combine(above(x) for x in r),
                   f"4 drops: {t['modified-tahoe'].fmt(2)} s against {t['tahoe'].fmt(2)} s; "
                   f"Tahoe ÷ Modified Tahoe {span(r)} over 1, 4, 10 drops")]
    reno = [above(slower("reno", c, "4")) for c in ("tahoe", "modified-tahoe", "newreno")]
    close = equal(slower("tahoe", "newreno", "4"))
    found.append(Claim("001", "with 4 drops Tahoe is close to SACK; Reno suffers most (Figs. 7-8)",
                       combine([combine(reno), close]),
                       f"Reno slowest: {combine(reno)} ({t['reno'].fmt(2)} s); Tahoe close to SACK: "
                       f"{close} ({t['tahoe'].fmt(2)} s against {t['newreno'].fmt(2)} s)"))
    return found


def claims_002(out):
    found = []
    for name, key, v, label, paper in (
            ("002-loss", "loss__rate", "0.07", "at 7 % loss (Fig. 5)", (1.5, 1.9)),
            ("002-bandwidth", "wireless__rate", "3Mbit", "at 3 Mbit/s, 3 % loss (Fig. 7)", (1.18, 1.41))):
        sw = Sweep(out, name)
        rs = [sw.paired(total_mbit, ("wnewreno", {key: v}), (b, {key: v})) for b in ("newreno", "reno")]
        found.append(Claim(
            "002", f"WNewReno +{paper[0] * 100 - 100:.0f} % over NewReno, +{paper[1] * 100 - 100:.0f} % "
                   f"over Reno {label}",
            combine(above(r) for r in rs),
            "; ".join(f"÷ {b} {r.fmt(2)}x, {size(r, p)}" for b, r, p in zip(("NewReno", "Reno"), rs, paper))))
    sw = Sweep(out, "002-bandwidth")
    grow = {c: sw.paired(total_mbit, (c, {"wireless__rate": "11Mbit"}), (c, {"wireless__rate": "5Mbit"}))
            for c in ("newreno", "reno", "wnewreno")}
    top = sw.paired(total_mbit, ("wnewreno", {"wireless__rate": "11Mbit"}), ("newreno", {"wireless__rate": "11Mbit"}))
    # A plateau: 2.2 times the link rate gives less than PLATEAU more goodput (the interval's top).
    plateau = combine("holds" if grow[c].hi < 1.0 + PLATEAU else
                      "does not hold" if grow[c].lo > 1.0 + PLATEAU else "not resolved"
                      for c in ("newreno", "reno"))
    found.append(Claim("002", "as the wireless rate grows NewReno and Reno plateau, WNewReno at a "
                              "much higher level (Fig. 7)",
                       combine([plateau, above(top)]),
                       f"goodput at 11 ÷ at 5 Mbit/s: NewReno {grow['newreno'].fmt(2)}x, Reno "
                       f"{grow['reno'].fmt(2)}x (a plateau: below {1 + PLATEAU:.2f}x), WNewReno "
                       f"{grow['wnewreno'].fmt(2)}x; WNewReno ÷ NewReno at 11 Mbit/s {top.fmt(2)}x"))
    sw = Sweep(out, "002-three")
    ratio = lambda b, v: sw.paired(total_mbit, ("wnewreno", {"loss__rate": v}), (b, {"loss__rate": v}))
    rs = [ratio("newreno", "0.01"), ratio("reno", "0.01")]
    found.append(Claim("002", "three flows, fixed receivers: WNewReno +23 % over NewReno, +36 % over "
                              "Reno at 1 % (Fig. 15)",
                       combine(above(r) for r in rs),
                       f"÷ NewReno {rs[0].fmt(2)}x, ÷ Reno {rs[1].fmt(2)}x"))
    low = [ratio("newreno", v) for v in ("0.01", "0.03")]
    high = [ratio("newreno", v) for v in ("0.05", "0.07", "0.1", "0.15")]
    found.append(Claim("002", "three flows, mobile receivers: equal up to 3 % loss, WNewReno higher "
                              "beyond (Fig. 12)",
                       combine([equal(r) for r in low] + [above(r) for r in high]),
                       f"÷ NewReno {low[0].fmt(2)}x at 1 %, {low[1].fmt(2)}x at 3 %, {span(high)} "
                       "at 5-15 %"))
    return found


def claims_003(out):
    sw = Sweep(out, "003")
    many = ["5", "10", "20"]
    less = [sw.paired(loss_pct, ("newreno", {"count": n}), ("sack-few", {"count": n})) for n in many]
    more = [sw.paired(per_flow_kbit, ("sack-few", {"count": n}), ("newreno", {"count": n})) for n in many]
    loss = {c: [sw.est(loss_pct, c, count=n) for n in many] for c in ("newreno", "sack-few")}
    found = [
        Claim("003", "SACK-FeW: less packet loss at 50-200 nodes (Table 3)",
              combine(above(r) for r in less),
              "loss % SACK → SACK-FeW: " + ", ".join(
                  f"{a.fmt(2)} → {b.fmt(2)}" for a, b in zip(loss["newreno"], loss["sack-few"]))
              + " (5, 10, 20 flows)"),
        Claim("003", "SACK-FeW: higher throughput at 50-200 nodes (Table 2)",
              combine(above(r) for r in more),
              f"÷ SACK {span(more)} (5, 10, 20 flows)"),
    ]
    one = sw.paired(per_flow_kbit, ("sack-few", {"count": "1"}), ("newreno", {"count": "1"}))
    one_b = sw.paired(per_flow_kbit, ("sack-few:alpha=0.1", {"count": "1"}), ("newreno", {"count": "1"}))
    found.append(Claim("003", "SACK-FeW about equal to SACK at 10 nodes (Table 2)", equal(one),
                       f"÷ SACK with one flow {one.fmt(2)}x (alpha 0.1: {one_b.fmt(2)}x)"))
    return found


def claims_004(out):
    sw = Sweep(out, "004-errors-only")
    rs = [sw.paired(pkts(), ("composite", {"loss__rate": r}), ("newreno", {"loss__rate": r}))
          for r in RATES_004[1:]]
    found = [Claim("004", "CTCP delivers 1.51x SACK at error 0.001, 1.91x at 0.01 (Table 2)",
                   combine(above(r) for r in rs),
                   f"{rs[0].fmt(2)}x and {rs[1].fmt(2)}x; {size(rs[0], 1.51)} at 0.001, "
                   f"{size(rs[1], 1.91)} at 0.01")]
    sw = Sweep(out, "004-congestion-only")
    rs = [sw.paired(total_pkts, ("composite", {}), (b, {})) for b in ("newreno", "reno")]
    found.append(Claim("004", "CTCP at par with SACK and Reno under congestion (Table 3)",
                       combine(equal(r) for r in rs),
                       f"total ÷ SACK {rs[0].fmt(3)}x, ÷ Reno {rs[1].fmt(3)}x"))
    sw = Sweep(out, "004-errors-and-congestion")
    at = lambda c, r: (c, {"loss__rate": r})
    rs = [sw.paired(total_pkts, at("composite", r), at(b, r)) for b in ("newreno", "reno") for r in RATES_004[1:]]
    beat = [c for c in C004 if c != "composite" and
            above(sw.paired(total_pkts, at(c, "0.01"), at("composite", "0.01"))) == "holds"]
    found.append(Claim("004", "CTCP delivers the most under errors + congestion (Fig. 5)",
                       combine(above(r) for r in rs) + " against SACK and Reno",
                       f"÷ SACK {rs[0].fmt(2)}x at 0.001, {rs[1].fmt(2)}x at 0.01; more than CTCP at "
                       f"0.01: {', '.join(beat) if beat else 'none'}"))
    return found


CLAIMS = {"000": claims_000, "001": claims_001, "002": claims_002, "003": claims_003, "004": claims_004}

VERDICT_RULE = (f"Verdicts from the paired ratios' 95 % CIs: \"A more than B\" holds when the CI "
                f"lies above 1 and not inside 1 ± {EQUAL_BAND:.2f}, does not hold when it lies below 1 "
                f"or within 1 ± {EQUAL_BAND:.2f}; "
                f"\"A equals B\" holds when the CI lies within 1 ± {EQUAL_BAND:.2f}, does not hold "
                "when it lies outside; otherwise not resolved. A claim of several parts is "
                "\"partly\" when some hold and some do not.")


def claims_table(out):
    rows = []
    for paper, make in CLAIMS.items():
        for c in make(out):
            rows.append([paper, c.claim, f"**{c.verdict}**: {c.evidence}"])
    n = Sweep(out, "000-t1-100s").n_line()
    return table(["paper", "claim", "in QUIC"], rows, n + " " + VERDICT_RULE)


# The sweep whose n each paper's verdicts state (every paper sweep runs the same seeds).
CLAIMS_SWEEP = {"000": "000-t1-100s", "001": "001", "002": "002-loss", "003": "003", "004": "004-errors-only"}


def claims_section(out, paper):
    lines = [f"- {c.claim}: **{c.verdict}**; {c.evidence}." for c in CLAIMS[paper](out)]
    return "\n".join(lines) + "\n\n" + Sweep(out, CLAIMS_SWEEP[paper]).n_line() + (
        " Verdicts by the rules under \"Means, intervals and verdicts\" at the top.")


def tables(out):
    return {
        "000-t1-10s": lambda: t000_topology1(out, "t1-10s"),
        "000-t1-100s": lambda: t000_topology1(out, "t1-100s"),
        "000-t2-10s": lambda: t000_topology2(out, "t2-10s"),
        "000-t2-100s": lambda: t000_topology2(out, "t2-100s"),
        "001": lambda: t001(out),
        "002-loss": lambda: goodput_table(out, "002-loss", "loss__rate",
                                          ["0.01", "0.03", "0.05", "0.07", "0.1", "0.15"], C002, "loss"),
        "002-packets": lambda: t002_packets(out),
        "002-bandwidth": lambda: goodput_table(out, "002-bandwidth", "wireless__rate",
                                               ["1Mbit", "2Mbit", "3Mbit", "5Mbit", "7Mbit", "9Mbit", "11Mbit"],
                                               C002, "wireless rate"),
        "002-three": lambda: goodput_table(out, "002-three", "loss__rate",
                                           ["0.01", "0.03", "0.05", "0.07", "0.1", "0.15"], C002, "loss"),
        "003": lambda: t003(out),
        "004-errors-only": lambda: t004_errors_only(out),
        "004-congestion-only": lambda: t004_congestion_only(out),
        "004-errors-and-congestion": lambda: t004_mixed(out),
        "004-mixed-uncapped": lambda: t004_mixed(out, "004-mixed-uncapped"),
        "verdicts": lambda: verdicts(out),
        "netns": lambda: t_netns(out),
        "links": lambda: t_links(out),
        "claims": lambda: claims_table(out),
        **{f"verdict-{p}": (lambda p=p: claims_section(out, p)) for p in CLAIMS},
    }


# Sections of docs/RESULTS.md that other scripts write (beside readme_eval.py's `discern-*`):
# left as they are here.
WRITTEN_ELSEWHERE = {
    "bottleneck-goals": "scripts/readme_eval.py",
    "random-paths": "scripts/readme_eval.py",
    "competing": "scripts/compete_eval.py",
    "kernel-qdiscs": "scripts/kernel_eval.py",
    "kernel-startup": "scripts/kernel_eval.py",
    "realtime-noise": "scripts/realtime_noise.py",
    "peer-kept-noise": "scripts/peer_kept_noise.py",
    "efficiency-ceiling": "scripts/efficiency_ceiling.py",
    "receivers": "scripts/receivers_eval.py",
    "receivers-that-lie": "scripts/liars_eval.py",
}


def written_elsewhere(name):
    """The scoreboard's tables (scripts/readme_eval.py, scripts/bbr3_eval.py) and the other
    scripts' sections."""
    return name.startswith("discern-") or name in WRITTEN_ELSEWHERE


def check(doc):
    """Exits non-zero, naming them, if `doc` has generated tables that no script writes."""
    makers = tables(None)
    with open(doc) as f:
        names = re.findall(r"<!-- BEGIN (\S+) -->", f.read())
    unknown = [n for n in names if not written_elsewhere(n) and n not in makers]
    if unknown:
        raise SystemExit(
            f"{doc}: no script writes the tables {', '.join(unknown)}: add each to tables() "
            "or, if another script writes it, to WRITTEN_ELSEWHERE"
        )
    print(f"{doc}: {len(names)} tables, each written by a script")


def main():
    usage = __doc__.split("\n\n")[1]
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(usage)
        return
    if sys.argv[1:2] == ["--check"] and len(sys.argv) == 3:
        check(sys.argv[2])
        return
    if len(sys.argv) < 3 or sys.argv[1].startswith("-"):
        raise SystemExit(f"{usage}\n\nerror: give the sweeps' folder and the RESULTS file, "
                         "or --check and the RESULTS file")
    out, doc, only = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    makers = tables(out)
    with open(doc) as f:
        text = f.read()

    def replace(m):
        name = m.group(1)
        if written_elsewhere(name):
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
