#!/bin/sh
# hours.sh - one measured fuzz run of a target, appended to the record
# tests/fuzz/HOURS.md: the CPU time the fuzzer process used (user+system,
# all its threads, from /usr/bin/time), the inputs it executed (libFuzzer's
# final stats) and the crash files it left.  Run from the repository root
# after `make fuzz` (or its fuzz-build) has built build/fuzz/fuzz/.
#
#   sh tests/fuzz/hours.sh TARGET SECONDS [libFuzzer options...]
#
# The run is niced (FUZZ_NICE, default 19), one job, one worker; SECONDS
# is wall time.
# FUZZ_BIN names another directory of fuzz-<t> binaries.
set -u
t=$1
secs=$2
shift 2
bin=${FUZZ_BIN:-build/fuzz/fuzz}/fuzz-$t
rec=tests/fuzz/HOURS.md
[ -x "$bin" ] || { echo "hours.sh: $bin is not built" >&2; exit 2; }
mkdir -p "build/fuzz/corpus/$t" "build/fuzz/crash/$t" build/fuzz/log
log=build/fuzz/log/$t-$(date -u +%Y%m%dT%H%M%S).log
seeds=
[ "$t" = ydoc ] && seeds="fixtures/bad fixtures/demo/prints fixtures/rich/prints"
before=$(ls "build/fuzz/crash/$t" | wc -l)
export DBP_FUZZ_FIXTURES="$PWD/fixtures"
# shellcheck disable=SC2086
/usr/bin/time -f 'cpu %U %S' -o "$log.time" nice -n "${FUZZ_NICE:-19}" "$bin" \
    -max_total_time="$secs" -timeout=120 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="build/fuzz/crash/$t/" \
    -dict="fixtures/fuzz/$t.dict" "$@" \
    "build/fuzz/corpus/$t" "fixtures/fuzz/$t" $seeds >"$log" 2>&1
rc=$?
after=$(ls "build/fuzz/crash/$t" | wc -l)
cpu=$(awk '/^cpu /{printf "%.1f", ($2 + $3) / 60}' "$log.time")
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
[ -f "$rec" ] || printf '%s\n\n%s\n%s\n' \
    "# Fuzzing record (tests/fuzz/hours.sh appends one line per run)" \
    "| date (UTC) | target | CPU-min | execs | crashes | exit |" \
    "|---|---|---|---|---|---|" >"$rec"
printf '| %s | %s | %s | %s | %s | %s |\n' "$(date -u '+%Y-%m-%d %H:%M')" \
    "$t" "${cpu:-?}" "${execs:-?}" "$((after - before))" "$rc" >>"$rec"
tail -1 "$rec"
