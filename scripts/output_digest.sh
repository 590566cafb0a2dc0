#!/usr/bin/env bash
# Fingerprints every file the harness writes on the simulator, so that a refactor can show its
# outputs are byte-identical before and after:
#
#   scripts/output_digest.sh out/digest-before      # on the old commit
#   scripts/output_digest.sh out/digest-after       # on the new one
#   diff out/digest-before/SHA256SUMS out/digest-after/SHA256SUMS && echo identical
#
# Make both in the same checkout: a capacity trace is named in summaries by its path.
#
# It runs every scenario in scenarios/ once (`run`), a two-seed sweep of each over two controllers
# (`sweep`), one `run --runs 2` and the scoreboard at `--runs 2` (`score`), then lists the SHA-256 of
# every output file (summaries, CSVs, JSON, plots) and of the score's printed table and messages in
# DIR/SHA256SUMS. `timing.json` (wall-clock seconds, by design) is the one output left out, and the
# output folder's name is taken out of the printed table. Needs cargo; about a minute on two cores after the release build.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${1:?usage: scripts/output_digest.sh OUT_DIR}
cargo build --release -q -p quinn-discern-harness
D=target/release/discern
rm -rf "${OUT:?}"
mkdir -p "$OUT"

for file in scenarios/*.toml; do
    name=$(basename "$file" .toml)
    "$D" run "$file" --out "$OUT/run/$name" >/dev/null
    "$D" sweep "$file" --vary seed=1,2 --controller newreno,discern --out "$OUT/sweep/$name" >/dev/null
done
"$D" run scenarios/quick.toml --runs 2 --out "$OUT/runs" >/dev/null
# A run that fails is part of the output: its exit status and message are fingerprinted too.
"$D" score --runs 2 --out "$OUT/score" >"$OUT/score.table" 2>"$OUT/score.stderr" || echo "exit $?" >"$OUT/score.status"

sed -i "s|$OUT|OUT|g" "$OUT/score.table"

(cd "$OUT" && find . -type f ! -name SHA256SUMS ! -name timing.json | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
echo "$(wc -l <"$OUT/SHA256SUMS") files fingerprinted in $OUT/SHA256SUMS"
