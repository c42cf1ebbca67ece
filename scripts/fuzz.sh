#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, -DRDMATOP_FUZZ=ON, clang, ASan+UBSan) in a build
# directory of their own and runs each one for a bounded time on seed corpora made from the
# fixtures (docs/fuzzing.md). scripts/test.sh calls it with the CI budget; by hand:
#   FUZZ_SECONDS_PER_TARGET=600 scripts/fuzz.sh            # ten minutes each
#   FUZZ_SECONDS_PER_TARGET=60 scripts/fuzz.sh promql      # one target
# Environment:
#   FUZZ_TOTAL_SECONDS       run time shared by all targets (default 48: about 3 minutes in CI
#                            with the build); ignored when FUZZ_SECONDS_PER_TARGET is set
#   FUZZ_SECONDS_PER_TARGET  run time of each target
#   FUZZ_BUILD_DIR           build directory (default build-fuzz)
#   FUZZ_JOBS                build jobs (default nproc)
# A crash, a leak, a UBSan report, a timeout (10 s for one input) or an input needing more than
# 1 GiB fails the run; the input is kept as <build>/crashes/<target>/crash-* and its path
# printed: turn it into a regression test in tests/unit/ (docs/fuzzing.md says how).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
build=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}

echo "== fuzz: build ($build, clang)"
cmake -S . -B "$build" -DRDMATOP_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DRDMATOP_WERROR=ON >/dev/null
cmake --build "$build" -j"$jobs"

mapfile -t all_targets < "$build/fuzz_targets.txt"
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
if [ -n "${FUZZ_SECONDS_PER_TARGET:-}" ]; then
  per_target=$FUZZ_SECONDS_PER_TARGET
else
  per_target=$(( ${FUZZ_TOTAL_SECONDS:-48} / ${#targets[@]} ))
  [ "$per_target" -ge 1 ] || per_target=1
fi

# Seeds: the fixtures each parser reads in the tests, plus fuzz/seeds/<target>/ for formats
# without fixtures. Files are copied (not linked) so libFuzzer may add to the corpus.
seed() {  # seed TARGET FILE...
  local dir="$build/corpus/$1"
  shift
  mkdir -p "$dir"
  local f
  for f in "$@"; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    [ "$(stat -c %s "$f")" -le 65536 ] || continue
    cp "$f" "$dir/$(sha1sum "$f" | cut -c1-16)"
  done
}
seed_exprs() {  # the single-line `expr:` values of rule files, one seed each
  local dir="$build/corpus/promql" n=0 line
  mkdir -p "$dir"
  while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" > "$dir/expr-$n"
  done < <(sed -n 's/^ *expr: *\(.*[^|>]\)$/\1/p' "$@" | sed "s/^'\(.*\)'$/\1/; s/^\"\(.*\)\"$/\1/")
}
rm -rf "$build/corpus"
mapfile -t sys_files < <(find tests/fixtures/hosts tests/fixtures/real -path '*/sys/*' -type f \
  -size -4k | sort | awk 'NR % 7 == 0')
seed sysfs_parse "${sys_files[@]}"
mapfile -t ethtool_files < <(find tests/fixtures -path '*/ethtool/*' -type f | sort)
seed ethtool_text "${ethtool_files[@]}"
mapfile -t proc_files < <(find tests/fixtures -type f \( -name interrupts -o -name limits \
  -o -name status -o -name numa_node -o -name local_cpulist \) | sort | head -200)
seed procfs "${proc_files[@]}" fuzz/seeds/procfs/*
seed netlink tests/fixtures/netlink/*.bin
mapfile -t rule_files < <(ls rules/builtin/*.yaml tests/rules/*.yaml | grep -v '_test\.yaml$')
seed rule_file "${rule_files[@]}"
seed_exprs rules/builtin/*.yaml tests/rules/*.yaml
seed template fuzz/seeds/template/*
seed scenario simulator/scenarios/*.yaml fuzz/seeds/scenario/*
seed web_config fuzz/seeds/web_config/*
seed http_request fuzz/seeds/http_request/*
seed target_list fuzz/seeds/target_list/*
seed probe_protocol fuzz/seeds/probe_protocol/*
seed recording fuzz/seeds/recording/*
# The capture parsers all start from every published capture, and fuzz/seeds/<target>/ for a
# format no published capture has yet.
mapfile -t capture_files < <(find tests/fixtures/real -path '*/capture/*' -type f | sort)
for t in "${all_targets[@]}"; do
  case "$t" in capture_*) seed "$t" "${capture_files[@]}" fuzz/seeds/"$t"/* ;; esac
done

status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  crashes="$build/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  echo "== fuzz: $t for ${per_target}s ($(ls "$corpus" | wc -l) seeds)"
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$build/bin/${t}_fuzz" -max_total_time="$per_target" -timeout=10 -rss_limit_mb=1024 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" \
      > "$build/$t.log" 2>&1; then
    status=1
    echo "fuzz: $t FAILED; last lines of $build/$t.log:"
    tail -n 40 "$build/$t.log"
    ls "$crashes"
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$build/$t.log" \
      | tr '\n' ' '
    echo
  fi
done
exit $status
