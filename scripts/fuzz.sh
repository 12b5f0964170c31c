#!/usr/bin/env bash
# Runs each libFuzzer target of tests/fuzz for SECONDS, starting from the checked-in seed corpus
# (tests/fuzz/corpus/<corpus>) plus what earlier runs in BUILD found (BUILD/fuzz-corpus/<target>).
# An input slower than 10 s or needing more than 2 GiB is a finding, as is a crash or a sanitizer
# report; findings are written to BUILD/fuzz-findings/ and the script fails.
# Usage: scripts/fuzz.sh BUILD SECONDS
set -uo pipefail
build=${1:?usage: scripts/fuzz.sh BUILD SECONDS}
seconds=${2:?usage: scripts/fuzz.sh BUILD SECONDS}
root="$(cd "$(dirname "$0")/.." && pwd)"
findings="$build/fuzz-findings"
mkdir -p "$findings"
status=0
for pair in fuzz_matrix_market:mm fuzz_batch_directory:batch; do
  target=${pair%%:*}
  corpus=${pair##*:}
  mkdir -p "$build/fuzz-corpus/$target"
  echo "fuzz: $target for ${seconds}s"
  if ! "$build/tests/fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$findings/$target-" \
      "$build/fuzz-corpus/$target" "$root/tests/fuzz/corpus/$corpus" \
      >"$build/fuzz-$target.log" 2>&1; then
    status=1
    echo "fuzz: $target found a problem (log: $build/fuzz-$target.log; inputs: $findings/):" >&2
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$build/fuzz-$target.log" | head -20 >&2
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/fuzz-$target.log"
done
exit $status
