#!/usr/bin/env bash
# Builds Xid's libFuzzer targets (the Fuzz/ package) with -sanitize=fuzzer,address and runs them.
#
#   scripts/fuzz.sh [--seconds N] [--smoke] [--runs N] [--debug] [--no-build] [target…]
#
#   target…      FuzzJSON FuzzJSONDifferential FuzzJWS FuzzJWK FuzzDiscovery FuzzTokenResponse
#                FuzzTokenExchangeResponse FuzzAuthorizationResponse FuzzHTTPRequestHead FuzzWWWAuthenticate FuzzTokenRecord
#                FuzzFamilyRecord FuzzDPoPNonce FuzzAuthorizationDetails
#                FuzzDPoPNonce (the default: all of them)
#   --seconds N  fuzz each target for N seconds (default 60), with a random seed
#   --smoke      what CI runs: the checked-in corpus replayed, then a fixed number of inputs per
#                target (about 10 s each here) from -seed=1, with deterministic hashing and a fresh
#                scratch corpus, so the same code always runs the same inputs: a new find never
#                turns CI red at random, only a change of code can
#   --runs N     with --smoke, N inputs per target instead of each target's own count; otherwise
#                stop a target after N inputs or --seconds, whichever comes first (a long run in
#                parts: run each target up to what it still needs)
#   --debug      a debug build instead of release (slower to run; for stepping through a crash)
#   --no-build   run what was built last
#
# Every run has -max_len=65536 (a 64 KiB token is the largest Xid parses), -timeout=10 (seconds per
# input) and -rss_limit_mb=2048. Inputs come from Fuzz/Corpus/<Target>/ (in the repository, read
# only) and $XID_FUZZ_WORK/corpus/<Target>/ (default /tmp/xid-fuzz; new finds go there, never into
# the repository). Logs: $XID_FUZZ_WORK/logs/<Target>.log (a smoke's: <Target>.smoke.log); one run of a
# target at a time per work folder. Crashes are saved in $XID_FUZZ_WORK/artifacts/; replay one with
#   SWIFT_BACKTRACE=enable=no Fuzz/.build/release/<Target> <artifact>
# The summary at the end gives executions per second per target. Exit status: 0 when every target
# ran clean, 1 when one crashed, leaked, timed out or ran out of memory (or did not run), 2 for usage.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fuzz="$root/Fuzz"
all_targets=(FuzzJSON FuzzJSONDifferential FuzzJWS FuzzJWK FuzzDiscovery FuzzTokenResponse
  FuzzTokenExchangeResponse FuzzAuthorizationResponse FuzzHTTPRequestHead FuzzWWWAuthenticate FuzzTokenRecord FuzzFamilyRecord FuzzDPoPNonce FuzzAuthorizationDetails)

# Inputs per target in --smoke: about 10 s each on the project's 2-core machine when it is quiet, so
# that CI's whole smoke (build included) stays near 3 to 4 minutes. Measured with the checked-in corpus and
# the release build; see Fuzz/README.md.
smoke_runs() {
  case "$1" in
    FuzzJSON) echo 150000 ;;
    FuzzJSONDifferential) echo 200000 ;;
    FuzzJWS) echo 210000 ;;
    FuzzJWK) echo 200000 ;;
    FuzzDiscovery) echo 250000 ;;
    FuzzTokenResponse) echo 290000 ;;
    FuzzTokenExchangeResponse) echo 250000 ;;
    FuzzAuthorizationResponse) echo 47000 ;;
    FuzzHTTPRequestHead) echo 350000 ;;
    FuzzWWWAuthenticate) echo 170000 ;;
    FuzzTokenRecord) echo 140000 ;;
    FuzzFamilyRecord) echo 140000 ;;
    FuzzDPoPNonce) echo 70000 ;;
    FuzzAuthorizationDetails) echo 150000 ;;
    *) echo 20000 ;;
  esac
}

usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }

seconds=60 smoke=0 runs="" configuration=release build=1 targets=()
while (($#)); do
  case "$1" in
    --seconds) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage; seconds=$2; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --runs) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage; runs=$2; shift 2 ;;
    --debug) configuration=debug; shift ;;
    --no-build) build=0; shift ;;
    -h | --help) usage ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; usage ;;
    *)
      [[ " ${all_targets[*]} " == *" $1 "* ]] || { echo "fuzz.sh: unknown target $1" >&2; usage; }
      targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=("${all_targets[@]}")

log() { printf '[fuzz] %s\n' "$*" >&2; }

if [[ "$(uname -s)" != Linux ]]; then
  log "the fuzz targets need the toolchain's libFuzzer, which Swift ships on Linux only"
  exit 1
fi
# Everything the targets need comes with the Swift toolchain (libFuzzer and the sanitizer runtimes in
# usr/lib/clang/*/lib/linux) and with what the main package needs already (libcrypto): nothing to
# install. Say so plainly when a toolchain lacks them.
toolchain="$(dirname "$(readlink -f "$(command -v swift)")")/.."
if ! compgen -G "$toolchain/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a" >/dev/null &&
  ! compgen -G "$toolchain/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-aarch64.a" >/dev/null; then
  log "this Swift toolchain ($toolchain) has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-*.a)"
  exit 1
fi

# --- build ----------------------------------------------------------------------------------------
# One product at a time: the package also holds MakeFuzzCorpus, an ordinary executable that must not
# be linked with libFuzzer. nice, because builds share the machine.
# -enable-testing: three targets reach internal parsers through @testable import (Fuzz/Package.swift).
build_flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
if ((build)); then
  started=$SECONDS
  for target in "${targets[@]}"; do
    log "building $target ($configuration, -sanitize=fuzzer,address)"
    # (gold warns about an ASan symbol on every link: harmless, and left out.)
    (cd "$fuzz" && nice -n 15 swift build -c "$configuration" "${build_flags[@]}" --product "$target") > >(grep --line-buffered -v "__asan_extra_spill_area" >&2) 2>&1 ||
      { log "build of $target failed"; exit 1; }
  done
  log "built in $((SECONDS - started)) s"
fi
bin="$(cd "$fuzz" && swift build -c "$configuration" --show-bin-path)"

# --- run ------------------------------------------------------------------------------------------
work="${XID_FUZZ_WORK:-${TMPDIR:-/tmp}/xid-fuzz}"
mkdir -p "$work/artifacts" "$work/logs"
if ((smoke)); then
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/xid-fuzz-smoke.XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
fi

# Swift's backtracer would inspect the process after a trap, under AddressSanitizer, and bury the
# report in errors of its own: libFuzzer reports the crash and saves the input instead.
export SWIFT_BACKTRACE=enable=no

summary=() failed=0
for target in "${targets[@]}"; do
  executable="$bin/$target"
  [[ -x "$executable" ]] || { log "$executable is missing; build without --no-build"; exit 1; }
  flags=(-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$work/artifacts/$target-")
  dictionary="$fuzz/Dictionaries/${target%Differential}.dict"
  [[ -f "$dictionary" ]] && flags+=(-dict="$dictionary")
  if ((smoke)); then
    count="${runs:-$(smoke_runs "$target")}"
    # Deterministic (measured: the same coverage and corpus from run to run): a fixed seed and count;
    # -reload=0, or libFuzzer rereads its output folder every second and runs what it finds there,
    # which shifts the runs by a time-dependent amount; -use_cmp=0, since compared operands include
    # addresses; deterministic hashing below; and XID_FUZZ_DETERMINISTIC leaves out the checks that
    # use randomness (FuzzSupport/LibFuzzer.swift).
    flags+=(-seed=1 -runs="$count" -reload=0 -use_cmp=0)
    new="$scratch/$target"
    export SWIFT_DETERMINISTIC_HASHING=1 XID_FUZZ_DETERMINISTIC=1
  else
    flags+=(-max_total_time="$seconds" -use_value_profile=1)
    [[ -n $runs ]] && flags+=(-runs="$runs")
    new="$work/corpus/$target"
  fi
  mkdir -p "$new"
  # The count of executions is read from the run's log, so no two runs may write one log: a smoke
  # writes its own in its scratch folder (kept as <Target>.smoke.log), and a longer run holds a lock
  # on <Target>.log for as long as it runs.
  if ((smoke)); then
    output="$scratch/$target.log" kept="$work/logs/$target.smoke.log"
  else
    output="$work/logs/$target.log" kept="$output"
    exec {lock}>"$output.lock"
    flock -n "$lock" || {
      log "$target: another run is writing $output (one run per target at a time; or set XID_FUZZ_WORK)"
      exit 1
    }
  fi
  log "$target: $([[ $smoke == 1 ]] && echo "$count inputs from seed 1" || echo "$seconds s"), log $kept"
  started=$EPOCHREALTIME
  status=0
  nice -n 15 "$executable" "${flags[@]}" "$new" "$fuzz/Corpus/$target" >"$output" 2>&1 || status=$?
  elapsed="$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
  final_stat() { sed -n "s/^stat::$1: *//p" "$output" | tail -1; }
  executed="$(final_stat number_of_executed_units)" rss="$(final_stat peak_rss_mb)"
  added="$(final_stat new_units_added)"
  # Executions per second over the whole run, corpus loading included (libFuzzer's own figure is
  # divided by whole seconds, which says 0 for a short run).
  speed="$(awk -v n="${executed:-0}" -v t="$elapsed" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }')"
  if [[ -z "$executed" ]]; then
    # No libFuzzer statistics: the binary did not run libFuzzer (or died before it could report).
    ((status)) || status=1
  fi
  if ((status)); then
    failed=1
    result="FAILED ($status)"
    # The error lines only: libFuzzer also prints the input, which may be a token.
    grep -E "^==[0-9]+==ERROR|Fatal error|^SUMMARY|Test unit written|^artifact_prefix|INFO: (Seed|Loaded)" \
      "$output" >&2 || tail -5 "$output" >&2
  else
    result=ok
  fi
  summary+=("$(printf '%-22s %-12s %10s %10s %8s %8s %6s' "$target" "$result" "${executed:--}" \
    "${speed:--}" "${added:--}" "${rss:--}" "$elapsed")")
  if ((smoke)); then cp "$output" "$kept"; else exec {lock}>&-; fi
done

printf '\n%-22s %-12s %10s %10s %8s %8s %6s\n' target result executions exec/s "new" "rss MB" "s"
printf '%s\n' "${summary[@]}"
((failed)) && log "a target failed: inputs in $work/artifacts, logs in $work/logs"
exit "$failed"
