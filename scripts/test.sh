#!/usr/bin/env bash
# npm test: setup for tests, the web build, then every check, and a summary at the end
# (scripts/lib/testResults): tests as declared and as cases run, flaky and skipped tests by name,
# the 10 slowest files, and one plain closing line.
#  1. setup's npm stage (npm ci), then the rest of setup beside the web build, tsc and ESLint;
#  2. side by side, what a neighbour's load cannot fail: vitest's integration files in one lane;
#     vitest's unit files, Playwright's e2e specs and then its herd spec in the other;
#  3. then, with nothing else running, what times what Keeper or the page shows: the integration
#     files (two at a time), then the e2e specs (one at a time).
# A failed step is recorded and the rest still runs (unless setup or the web build failed), so
# one run shows every failure; the summary names the first.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CI="${CI:-}" DEBIAN_FRONTEND=noninteractive
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
results_dir=$(mktemp -d)

results=()
began=$SECONDS

summary() {
  local verdict=$1
  local IFS=','
  echo
  echo "test.sh: ${verdict} in $((SECONDS - began))s:${results[*]}"
}

step() {
  local name=$1
  shift
  local t0=$SECONDS
  echo
  echo "==> ${name}: $*"
  "$@" </dev/null
  local rc=$?
  if ((rc != 0)); then
    results+=(" ${name} FAILED (exit ${rc})")
    summary "FAILED at ${name}"
    exit "$rc"
  fi
  results+=(" ${name} ok $((SECONDS - t0))s")
}

# Records a step's outcome; the first to fail is the one the summary names.
failed_at=""
record() {
  local name=$1 rc=$2 secs=$3
  if ((rc != 0)); then
    results+=(" ${name} FAILED (exit ${rc})")
    [[ -n "$failed_at" ]] || failed_at=$name
  else
    results+=(" ${name} ok ${secs}s")
  fi
}

# A test step: a failure is recorded and the later steps still run, so one run shows every
# failure; the results of all are summed up and printed at the end.
test_step() {
  local name=$1
  shift
  local t0=$SECONDS
  echo
  echo "==> ${name}: $*"
  "$@" </dev/null
  record "$name" $? $((SECONDS - t0))
}

skip() {
  echo
  echo "==> $1: skipped ($2)"
  results+=(" $1 skipped")
}

# tsc and ESLint are one core each and need nothing from each other: run together.
both() {
  local out rc_t rc_l
  out=$(mktemp -d)
  npm run typecheck >"$out/typecheck" 2>&1 </dev/null &
  local t=$!
  if [[ -f eslint.config.js ]]; then npm run lint >"$out/lint" 2>&1 </dev/null; else echo "no eslint.config.js yet: lint skipped" >"$out/lint"; fi
  rc_l=$?
  wait "$t"
  rc_t=$?
  echo "--- typecheck (exit ${rc_t})"
  cat "$out/typecheck"
  echo "--- lint (exit ${rc_l})"
  cat "$out/lint"
  rm -rf "$out"
  ((rc_t == 0 && rc_l == 0))
}

# Lanes side by side. Measured on the 2-core machine, the integration files keep the cores about
# half busy (they wait on JVMs, elections and session timeouts) and e2e about three quarters, so
# one after the other left a core idle for minutes. The e2e specs run on two lanes of their own
# (a Keeper and a sandbox each), then the herd spec, which loads the machine on purpose, on one.
# Each step's output is kept in a file and printed whole when the phase ends, so the log reads in
# order; a line a minute says what is still running.
e2e_specs() { [[ -f playwright.config.ts && -n "$(find e2e -name '*.spec.ts' -print -quit 2>/dev/null)" ]]; }
# A vitest project's files, its report (scripts/lib/testResults) into $results_dir.
vitest_files() {
  local project=$1 projects=(--project "$1")
  # The few unit files that mock modules run in a project of their own (vitest.config.ts).
  [[ $project == unit ]] && projects+=(--project unit-isolated)
  KEEPER_VITEST_FILES="$results_dir/vitest-$project.json" npx vitest run "${projects[@]}" \
    --reporter=default --reporter=./scripts/lib/testResults/vitestFileReporter.ts
}
# A Playwright project's specs, its report into $results_dir: `e2e` on its two lanes, the others
# after it on one lane, whatever it found.
playwright_files() {
  local project=$1
  local report="$results_dir/playwright-$project.json"
  if [[ $project == e2e ]]; then
    PLAYWRIGHT_JSON_OUTPUT_NAME=$report npx playwright test --project e2e --reporter=list,json
  else
    # The timed specs on a Keeper and sandbox of their own (KEEPER_E2E_SLOT): no lane-0 state carried over.
    local slot=""
    [[ $project == e2e-alone ]] && slot=alone
    KEEPER_E2E_SLOT=$slot KEEPER_E2E_LANES=1 PLAYWRIGHT_JSON_OUTPUT_NAME=$report npx playwright test --project "$project" --no-deps --reporter=list,json
  fi
}
# Runs "name command args" entries one after the other in the background, each one's output into
# $results_dir/<name>.log and "exit seconds" into <name>.rc; each runs whatever the one before found.
lane() {
  (
    for entry in "$@"; do
      local name=${entry%% *} t0=$SECONDS
      # shellcheck disable=SC2086 # the entry is "name command args", split on purpose
      ${entry#* } </dev/null >"$results_dir/$name.log" 2>&1
      local rc=$?
      echo "$rc $((SECONDS - t0))" >"$results_dir/$name.rc"
    done
  ) &
}
# Prints a side-by-side step's output and records it.
collect() {
  local name=$1 rc secs
  if [[ ! -f "$results_dir/$name.rc" ]]; then
    skip "$name" "it never ended"
    return
  fi
  read -r rc secs <"$results_dir/$name.rc"
  echo
  echo "==> ${name} (${secs}s):"
  cat "$results_dir/$name.log"
  record "$name" "$rc" "$secs"
}
# Each lane in a process group of its own (set -m), so that Ctrl-C or CI's TERM stops them and all
# they started: without job control a script's background jobs ignore SIGINT and outlive it.
lane_pids=()
stop_lanes() { for p in "${lane_pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done; }
trap 'stop_lanes; exit 130' INT
trap 'stop_lanes; exit 143' TERM
# Runs each argument as a lane (its steps separated by ";", one after the other), all lanes at
# once; a line a minute says what is still running; then prints and records every step in order.
phase() {
  local t0=$SECONDS pids=() steps=() entries
  set -m
  for spec in "$@"; do
    IFS=';' read -r -a entries <<<"$spec"
    lane "${entries[@]}"
    pids+=($!)
    for e in "${entries[@]}"; do steps+=("${e%% *}"); done
  done
  set +m
  lane_pids=("${pids[@]}")
  local running
  while true; do
    running=()
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && running+=("$p"); done
    ((${#running[@]} == 0)) && break
    # A wait on a sleep, not a sleep: a signal's trap runs at once, not when the sleep ends.
    sleep 5 &
    wait $!
    if (((SECONDS - t0) % 60 < 5)); then
      local busy=()
      for n in "${steps[@]}"; do [[ -f "$results_dir/$n.log" && ! -f "$results_dir/$n.rc" ]] && busy+=("$n"); done
      echo "... $((SECONDS - t0))s: running ${busy[*]:-nothing}; load $(cut -d' ' -f1 /proc/loadavg)"
    fi
  done
  wait
  for n in "${steps[@]}"; do collect "$n"; done
}
trap 'rm -rf "$results_dir"' EXIT

# Setup in two stages (scripts/setup.sh --help says why): the npm packages first; then the rest
# of Debian's packages, checked, beside the web build, tsc and ESLint, which need only npm's.
step setup-npm bash scripts/setup.sh --for-tests --npm-only
# The real build-change upgrade test is required wherever Debian's archive answers (as in CI):
# exit 0 required, 3 not reachable (the test may skip; the summary names the skip).
setup_for_tests() {
  bash scripts/setup.sh --for-tests || return
  npx tsx scripts/olderBuildForTests.ts
  case $? in
    0) : >"$results_dir/older-build-required" ;;
    3) ;;
    *) return 1 ;;
  esac
}
phase "setup setup_for_tests" "build-web npm run build -w web;typecheck+lint both"
[[ -f $results_dir/older-build-required ]] && export KEEPER_REQUIRE_OLDER_BUILD=1
# Every test needs the parts setup checked, and the package test and e2e serve the web build.
for gate in setup build-web; do
  read -r rc _ <"$results_dir/$gate.rc" 2>/dev/null || rc=1
  ((rc == 0)) || stop_at=$gate
  [[ -z ${stop_at:-} ]] || break
done

if [[ -n "${stop_at:-}" ]]; then
  for n in integration unit e2e e2e-load integration-alone e2e-alone; do skip "$n" "after ${stop_at} failed"; done
elif ! e2e_specs; then
  phase "integration vitest_files integration" "unit vitest_files unit"
  for n in e2e e2e-load e2e-alone; do skip "$n" "no playwright.config.ts or e2e/**/*.spec.ts yet"; done
  phase "integration-alone vitest_files integration-alone"
else
  phase "integration vitest_files integration" "unit vitest_files unit;e2e playwright_files e2e;e2e-load playwright_files e2e-load"
  # Then what times what Keeper or the page shows (within 3 s), each with nothing else beside it:
  # the timed integration files two at a time, then the timed e2e specs on one lane. Not together:
  # beside the integration files a hung member was said after 2.2-3.2 s, not 1.1 s (2026-12-07).
  # Nor beside the others in a cgroup that gave them the CPU first (cpu.shares 262144): the other
  # lanes then starved for seconds, and their own windows broke (a 90 s lock holder's session ran
  # out mid-file, a fetch to a Keeper failed; docs/testing-time.md, 2026-12-07).
  phase "integration-alone vitest_files integration-alone"
  phase "e2e-alone playwright_files e2e-alone"
fi

# Every test counted by vitest and Playwright; a flaky freshness/truth spec fails the run here.
report=$(npx tsx scripts/lib/testResults/cli.ts --vitest "$results_dir/vitest-unit.json" --vitest "$results_dir/vitest-integration.json" --vitest "$results_dir/vitest-integration-alone.json" --playwright "$results_dir/playwright-e2e.json" --playwright "$results_dir/playwright-e2e-load.json" --playwright "$results_dir/playwright-e2e-alone.json" </dev/null)
rc=$?
echo "load average at the start: ${load_at_start}; at the end: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores: above 2 stretches the times)"
if [[ -n "$failed_at" ]]; then
  summary "FAILED at ${failed_at}"
  rc=1
elif ((rc != 0)); then
  summary "FAILED in the results"
else
  summary PASSED
fi
# Last, the plain line CI reads: "N passed, N failed, N flaky, N skipped (…)".
echo "$report"
exit "$rc"
