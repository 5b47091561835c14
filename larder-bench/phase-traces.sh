#!/usr/bin/env bash
# Replays two traces made of two phases each through LRU, Caffeine, the optimum and Larder: a
# recency-heavy phase (sprite, where LRU beats Caffeine at 1,000 entries) followed by a loop
# slightly larger than the middle cache size (the LIRS set's loop, 1,011 keys), and the same two
# phases in the other order. A policy that adapts to the first phase must not be stuck in it
# for the second.
#
# Usage: larder-bench/phase-traces.sh DIR [OUT]
#   DIR holds sprite.trace.gz (see heldout-traces.sh, whose DIR it can be); the loop comes from
#   the repository's data/traces/lirs/loop.trace.gz. The loop phase is the loop's first requests, twice as
#   many as sprite's, with its keys moved by 10,000,000 so that they are not sprite's.
#   OUT (default bench-results/phase) gets the two traces and a results folder for each.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 DIR [OUT]   (DIR: a folder holding sprite.trace.gz)" >&2
  exit 2
fi
dir="$(cd "$1" && pwd)"
loop="$root/data/traces/lirs/loop.trace.gz"
if [ ! -f "$dir/sprite.trace.gz" ]; then
  echo "phase-traces: $dir/sprite.trace.gz is missing: get lirs/sprite.trace.gz from" \
    "ben-manes/caffeine at commit ccef95542a91, under" \
    "simulator/src/main/resources/com/github/benmanes/caffeine/cache/simulator/parser/" >&2
  exit 1
fi
if [ ! -f "$loop" ]; then
  echo "phase-traces: $loop is missing: it ships with the repository (data/traces/README.md);" \
    "restore it with git checkout -- data/traces" >&2
  exit 1
fi
sprite_sha="$(gzip -dc "$dir/sprite.trace.gz" | sha256sum | cut -c1-16)"
if [ "$sprite_sha" != "e4620bb83c09fb22" ]; then
  echo "phase-traces: sprite.trace.gz has content SHA-256 $sprite_sha, expected e4620bb83c09fb22" >&2
  exit 1
fi
out="${2:-$root/bench-results/phase}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# the LIRS format's "*" lines are not requests
gzip -dc "$dir/sprite.trace.gz" | awk '$1 != "*"' > "$out/sprite.part"
requests="$(wc -l < "$out/sprite.part")"
# (awk stops printing rather than head stopping the pipe, which pipefail would report)
gzip -dc "$loop" | awk -v n="$((2 * requests))" '$1 != "*" && c < n { print $1 + 10000000; c++ }' \
  > "$out/loop.part"
cat "$out/sprite.part" "$out/loop.part" > "$out/sprite-then-loop.trace"
cat "$out/loop.part" "$out/sprite.part" > "$out/loop-then-sprite.trace"
rm "$out/sprite.part" "$out/loop.part"

results=()
for name in sprite-then-loop loop-then-sprite; do
  echo "phase-traces: $name" >&2
  "$root/larder" bench hitratio --out "$out/$name" \
    -P file="$out/$name.trace" -P format=lirs -P sizes=500,1000,2000
  results+=("$out/$name/hitratio.json")
done
echo "phase-traces: for the table, run from $root with a JDK 25:" >&2
echo "  java -cp larder-bench/target/classes:\$(cat larder-bench/target/classpath.txt)" \
  "dev.larder.bench.hitratio.HitRatioMain --from $(IFS=,; echo "${results[*]}")" >&2
