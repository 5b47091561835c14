#!/usr/bin/env bash
# Replays the public traces that are NOT in data/traces (issue 6 says the policy is also
# judged on such traces) through LRU, Caffeine, the optimum and Larder, one
# `./larder bench hitratio -P file=...` run per trace.
#
# Usage: larder-bench/heldout-traces.sh DIR [OUT]
#   DIR holds the files below, as found in ben-manes/caffeine at commit ccef95542a91 (the
#   commit most of data/traces was copied from), under
#   simulator/src/main/resources/com/github/benmanes/caffeine/cache/simulator/parser/:
#     lirs/zigzag.trace.gz lirs/sprite.trace.gz lirs/multi3.trace.gz cache2k/web12.trace.xz
#     cache2k/orm-night.trace.xz scarab/scarab-recs.trace.xz cloud_physics/w106.trace.xz
#   and P2.lis.zst and P12.lis.zst (the ARC paper's Vtrace disk traces, as found in
#   moka-rs/cache-trace at commit ef0a9de, under arc/)
#   (flat in DIR, under their file names). The .xz and .zst files are decompressed into OUT
#   with xz and zstd.
#   OUT (default bench-results/heldout) gets one results folder per trace.
# Each file's content is checked against the SHA-256 prefix below before it is replayed; a
# missing or different file stops the script, before anything is replayed, saying where to get
# it. These traces are not part of this repository (data/traces holds those the suite replays).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 DIR [OUT]   (DIR: a folder holding the trace files listed in this script)" >&2
  exit 2
fi
dir="$(cd "$1" && pwd)"
out="${2:-$root/bench-results/heldout}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# file, format, sizes (entries; from LIRS2's trace parameters for zigzag, multi3 and w106, whose
# listed range is 200-393,415, from the ARC paper's 1,024-524,288 curves for P2 and P12 (32,768
# is its tables' size), and from cache2k-benchmark for the others), content SHA-256
traces=(
  "zigzag.trace.gz lirs 100,300,500,700,1000,1500,2000 dc5d1ce0d36d608b"
  "sprite.trace.gz lirs 100,500,1000 e4620bb83c09fb22"
  "multi3.trace.gz lirs 200,600,1000,2000,3000,4000 34253744f3fe334a"
  "web12.trace.xz int32 300,1200,3000 89f9312922a952ee"
  "orm-night.trace.xz int32 625,2500,10000 24ce167a64bbdfaf"
  "scarab-recs.trace.xz int64 25000,50000,100000 a4d3f3a07ef3762c"
  "w106.trace.xz int32 5000,20000,100000 de302113703eb110"
  "P2.lis.zst arc 8192,32768,131072 fa56a2b5f02f6480"
  "P12.lis.zst arc 8192,32768,131072 ee233c9d0f1be27b"
)

# where each file comes from, for the message when it is missing
caffeine="ben-manes/caffeine at commit ccef95542a91, under simulator/src/main/resources/com/github/benmanes/caffeine/cache/simulator/parser"
source_of() {
  case "$1" in
    zigzag.* | sprite.* | multi3.*) echo "$caffeine/lirs/$1" ;;
    web12.* | orm-night.*) echo "$caffeine/cache2k/$1" ;;
    scarab-recs.*) echo "$caffeine/scarab/$1" ;;
    w106.*) echo "$caffeine/cloud_physics/$1" ;;
    *) echo "moka-rs/cache-trace at commit ef0a9de, arc/$1" ;;
  esac
}

content() {
  case "$1" in
    *.gz) gzip -dc "$1" ;;
    *.xz) xz -dc "$1" ;;
    *.zst) zstd -qdc "$1" ;;
    *) cat "$1" ;;
  esac
}

# every file is checked before any replay starts
for entry in "${traces[@]}"; do
  read -r file format sizes sha <<<"$entry"
  if [ ! -f "$dir/$file" ]; then
    echo "heldout-traces: $dir/$file is missing: get it from $(source_of "$file")" >&2
    exit 1
  fi
  actual="$(content "$dir/$file" | sha256sum | cut -c1-16)"
  if [ "$actual" != "$sha" ]; then
    echo "heldout-traces: $file has content SHA-256 $actual, expected $sha" >&2
    exit 1
  fi
done

results=()
for entry in "${traces[@]}"; do
  read -r file format sizes sha <<<"$entry"
  replay="$dir/$file"
  if [[ "$file" == *.xz || "$file" == *.zst ]]; then
    replay="$out/${file%.*}"
    content "$dir/$file" > "$replay"
  fi
  name="${file%%.*}"
  echo "heldout-traces: $name at $sizes" >&2
  "$root/larder" bench hitratio --out "$out/$name" \
    -P file="$replay" -P format="$format" -P sizes="$sizes"
  results+=("$out/$name/hitratio.json")
done

# the table of all the cells with margins, means and short cells, as BENCHMARKS.md shows it
# (with a JDK 25 java, from the repository's root)
echo "heldout-traces: for the table of all cells, run from $root with a JDK 25:" >&2
echo "  java -cp larder-bench/target/classes:\$(cat larder-bench/target/classpath.txt)" \
  "dev.larder.bench.hitratio.HitRatioMain --from $(IFS=,; echo "${results[*]}")" >&2
