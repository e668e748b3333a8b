#!/usr/bin/env bash
# Fuzzes every reader of outside input with libFuzzer (clang, AddressSanitizer, UBSan): builds the
# `fuzz` preset, then runs each target for SECONDS on its seed corpus (tests/fuzz/corpus/NAME)
# plus what earlier runs found (build-fuzz/corpus/NAME). A crash leaves its input in
# build-fuzz/crashes/ and fails the script: copy it to tests/fuzz/regressions/NAME/, where the
# ordinary tests replay it, and mend the reader.
#   scripts/fuzz.sh [SECONDS] [NAME ...]      (default 60 s each, every target)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
scripts/install-deps.sh --fuzz
cmake --preset fuzz >/dev/null && cmake --build --preset fuzz || exit 1
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then  # every target the fuzz preset built
  for exe in build-fuzz/tests/fuzz/fuzz_*; do targets+=("${exe##*/fuzz_}"); done
fi
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/tests/fuzz/ubsan.supp"
failed=0
mkdir -p build-fuzz/crashes
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  log="build-fuzz/fuzz-$t.log"
  "build-fuzz/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=120 -rss_limit_mb=3072 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$t-" "build-fuzz/corpus/$t" \
    "tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$")
  cov=$(grep -oE "cov: [0-9]+" "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    printf "%-14s %4s s: %9s inputs, %s, nothing found\n" "$t" "$seconds" "${runs:-?}" "$cov"
  else
    failed=1
    printf "%-14s FOUND (exit %d): %s\n" "$t" $rc "$(grep -m1 -E "ERROR|runtime error" "$log")"
    grep -E "^artifact_prefix|Test unit written" "$log" | tail -1
  fi
done
exit $failed
