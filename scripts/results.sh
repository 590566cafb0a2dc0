#!/usr/bin/env bash
# Regenerates docs/RESULTS.md: runs every sweep of the five papers' scenarios on the simulator
# into out/results/, every point over RUNS seeds, copies the plots the document shows into
# docs/results/, and rewrites the generated tables in docs/RESULTS.md (scripts/results_tables.py).
#
#   scripts/results.sh            # all sweeps, 10 seeds per point, one run at a time (JOBS=1)
#   JOBS=2 scripts/results.sh     # runs in parallel on an idle machine
#   RUNS=3 scripts/results.sh     # 3 seeds per point, for a quick look
#   TABLES_ONLY=1 scripts/results.sh   # only rewrite the tables from existing out/results/
#   SKIP_NETNS=1 scripts/results.sh     # as root, skip the real-namespace sweep
#   NETNS_RUNS=5 scripts/results.sh     # seeds of the real-namespace sweep (default 3; 20 s each)
#   LINK_SEEDS=1,2,3 scripts/results.sh # seeds of the LTE-trace sweeps (default 1-10)
#   ONLY=links scripts/results.sh      # only the LTE-trace sweeps and their table
#
# Needs cargo and Python 3 (standard library only). Measured with JOBS=2 on a 2-core machine shared
# with other work: 29 minutes after the release build (20 for the paper sweeps at RUNS=10, half a
# minute for the LTE sweeps, 9 for the netns sweep at NETNS_RUNS=3, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-out/results}
JOBS=${JOBS:-1}
RUNS=${RUNS:-10}
NETNS_RUNS=${NETNS_RUNS:-3}
D=target/release/discern
# Beside every paper's controllers: quinn's own three and the Composite classifier in front of CUBIC.
PEERS=quinn-newreno,quinn-cubic,quinn-bbr,composite+quinn-cubic
MSACK=newreno,modified-sack:tolerance=0,modified-sack:tolerance=0.02,modified-sack:tolerance=0.05,modified-sack:tolerance=0.1,modified-sack:tolerance=0.2
PER=0,0.00001,0.0001,0.001,0.01

# A sweep of RUNS seeds per point.
sweep() {
    local name=$1
    shift
    local t0=$SECONDS
    rm -rf "${OUT:?}/$name"
    "$D" sweep "$@" --runs "$RUNS" --jobs "$JOBS" --out "$OUT/$name" >"$OUT/$name.log" 2>&1 || {
        cat "$OUT/$name.log"
        exit 1
    }
    echo "  $name: $((SECONDS - t0)) s"
}

# A sweep whose failed runs are part of the result: they are listed in sweep.csv's error column
# and counted in the table; only a sweep that wrote no sweep.csv stops the script.
sweep_keeping_failures() {
    local name=$1
    shift
    local t0=$SECONDS
    rm -rf "${OUT:?}/$name"
    "$D" sweep "$@" --jobs "$JOBS" --out "$OUT/$name" >"$OUT/$name.log" 2>&1 || {
        [[ -f $OUT/$name/sweep.csv ]] || {
            cat "$OUT/$name.log"
            exit 1
        }
        echo "  $name: $(grep -c 'failed:' "$OUT/$name.log") runs failed (see $OUT/$name.log)"
    }
    echo "  $name: $((SECONDS - t0)) s"
}

start=$SECONDS
if [[ -z ${TABLES_ONLY:-} ]]; then
    cargo build --release -p quinn-discern-harness
    mkdir -p "$OUT"
    build=$SECONDS
    echo "sweeps (--jobs $JOBS, --runs $RUNS):"

    if [[ -z ${ONLY:-} ]]; then
        # Paper 000, Tables 1-2 (topology I, errors only) and 3-4 (topology II; only the measured
        # flow 0 changes controller, the 7 cross flows stay NewReno).
        sweep 000-t1-100s scenarios/000-topology-1.toml --vary link.wireless.loss.rate=$PER \
            --controller $MSACK,$PEERS
        sweep 000-t1-10s scenarios/000-topology-1.toml --set duration=10s \
            --vary link.wireless.loss.rate=$PER --controller $MSACK,$PEERS
        sweep 000-t2-100s scenarios/000-topology-2.toml --vary link.wireless.loss.rate=$PER \
            --vary flow.0.controller=$MSACK,$PEERS
        sweep 000-t2-10s scenarios/000-topology-2.toml --set duration=10s \
            --vary link.wireless.loss.rate=$PER --vary flow.0.controller=$MSACK,$PEERS

        # Paper 001, Figs. 3-10: one handover dropping 1, 4 or 10 packets during a 1.6 MB download.
        sweep 001 scenarios/001-handover.toml --vary link.line.loss.drops=1,4,10 \
            --controller tahoe,modified-tahoe,reno,newreno,$PEERS

        # Paper 002, Figs. 5/9 (loss rate), 7/10 (wireless bandwidth at 3 %), 12/15 (three flows).
        sweep 002-loss scenarios/002-one-flow.toml \
            --vary link.wireless.loss.rate=0.01,0.03,0.05,0.07,0.1,0.15 \
            --controller wnewreno,newreno,reno,$PEERS
        sweep 002-bandwidth scenarios/002-one-flow.toml \
            --vary link.wireless.rate=1Mbit,2Mbit,3Mbit,5Mbit,7Mbit,9Mbit,11Mbit \
            --controller wnewreno,newreno,reno,$PEERS
        sweep 002-three scenarios/002-three-flows.toml \
            --vary link.wireless.loss.rate=0.01,0.03,0.05,0.07,0.1,0.15 \
            --controller wnewreno,newreno,reno,$PEERS

        # Paper 003, Tables 2-4: 1..20 flows (10..200 nodes) on one lossy shared link.
        sweep 003 scenarios/003-shared-lossy.toml --vary flow.0.count=1,2,5,10,20 \
            --controller newreno,sack-few,sack-few:alpha=0.1,$PEERS

        # Paper 004, Tables 2-3 and Fig. 5; the discriminating controllers of every paper ride along
        # for the verdict-accuracy table.
        sweep 004-errors-only scenarios/004-errors-only.toml --vary link.egress.loss.rate=0,0.001,0.01 \
            --controller newreno,reno,composite,modified-sack,wnewreno,$PEERS
        sweep 004-congestion-only scenarios/004-congestion-only.toml --controller newreno,reno,composite,modified-sack,wnewreno,$PEERS
        sweep 004-errors-and-congestion scenarios/004-errors-and-congestion.toml \
            --vary link.bottleneck.loss.rate=0,0.001,0.01 \
            --controller newreno,reno,composite,modified-sack,wnewreno,$PEERS
        # The same without the 50-packet window cap: the bottleneck overflows, so losses are mixed.
        sweep 004-mixed-uncapped scenarios/004-errors-and-congestion.toml \
            --set 'flow.*.receive_window=10MB' --vary link.bottleneck.loss.rate=0,0.001,0.01 \
            --controller newreno,reno,composite,modified-sack,wnewreno,$PEERS

    fi

    # Recorded LTE traces (drop-tail, and CoDel), every controller, several seeds. The traces
    # live beside the repository (../shared/traces); without them these sweeps are skipped and
    # the committed table stays.
    LINKS=newreno,modified-sack,wnewreno,composite,sack-few,veno,westwood,discern,discern:queue=full,quinn-newreno,quinn-cubic,quinn-bbr
    LINK_SEEDS=${LINK_SEEDS:-1,2,3,4,5,6,7,8,9,10}
    if [[ -f ../shared/traces/TMobile-LTE-short.down && -f ../shared/traces/ATT-LTE-driving-2016.down ]]; then
        for s in lte-tmobile lte-att lte-tmobile-codel; do
            sweep_keeping_failures "links-$s" "scenarios/$s.toml" --vary seed=$LINK_SEEDS --controller $LINKS
        done
    else
        echo "  links-lte-*: skipped (../shared/traces absent)"
    fi

    # Real namespaces with kernel TCP peers (root only; real time, one run at a time: 9 controllers
    # x 20 s per seed).
    if [[ -n ${ONLY:-} ]]; then
        :
    elif [[ $(id -u) == 0 && -z ${SKIP_NETNS:-} ]]; then
        JOBS=1 RUNS=$NETNS_RUNS sweep netns-quick scenarios/quick.toml --link netns --set duration=20s \
            --vary link.bottleneck.loss.rate=0.01 \
            --controller newreno,composite,wnewreno,modified-sack,quinn-cubic,composite+quinn-cubic,tcp-reno,tcp-cubic,tcp-bbr
    else
        echo "  netns-quick: skipped (needs root; SKIP_NETNS unset)"
    fi

    echo "build $((build - start)) s, sweeps $((SECONDS - build)) s"
fi

if [[ -n ${ONLY:-} ]]; then
    python3 scripts/results_tables.py "$OUT" docs/RESULTS.md $ONLY
    echo "total $((SECONDS - start)) s"
    exit 0
fi

# The plots the document shows.
mkdir -p docs/results
copy() { cp "$OUT/$1" "docs/results/$2"; }
copy 000-t1-100s/goodput.png 000-goodput.png
# The window plots are the first seed's.
copy "$(cd "$OUT" && ls -d 001/runs/*drops=4-tahoe-seed=* | head -n 1)/cwnd.png" 001-cwnd-tahoe.png
copy "$(cd "$OUT" && ls -d 001/runs/*drops=4-modified-tahoe-seed=* | head -n 1)/cwnd.png" 001-cwnd-modified-tahoe.png
copy 002-loss/goodput.png 002-goodput-loss.png
copy 003/goodput.png 003-goodput.png
copy 004-errors-only/goodput.png 004-goodput-errors-only.png

python3 scripts/results_tables.py "$OUT" docs/RESULTS.md
echo "total $((SECONDS - start)) s"
