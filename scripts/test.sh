#!/usr/bin/env bash
# npm test: setup for tests, then every check in order, stopping at the first failure:
# typecheck and lint (side by side), web build, unit + integration tests (vitest, real ZooKeeper),
# e2e (Playwright with Debian's Chromium). Ends with a summary (scripts/lib/testResults): tests as
# declared and as cases run, flaky and skipped tests by name, the 10 slowest files, and one
# plain closing line.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CI="${CI:-}" DEBIAN_FRONTEND=noninteractive

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

# A test step: a failure is recorded and later steps are skipped, but the results of what ran
# are still summed up and printed at the end.
failed_at=""
test_step() {
  local name=$1
  shift
  if [[ -n "$failed_at" ]]; then
    skip "$name" "after ${failed_at} failed"
    return
  fi
  local t0=$SECONDS
  echo
  echo "==> ${name}: $*"
  "$@" </dev/null
  local rc=$?
  if ((rc != 0)); then
    results+=(" ${name} FAILED (exit ${rc})")
    failed_at=$name
  else
    results+=(" ${name} ok $((SECONDS - t0))s")
  fi
}

skip() {
  echo
  echo "==> $1: skipped ($2)"
  results+=(" $1 skipped")
}

load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
step setup bash scripts/setup.sh --for-tests
# The real build-change upgrade test is required wherever Debian's archive answers (as in CI):
# exit 0 required, 3 not reachable (the test may skip; the summary names the skip).
older_build() {
  npx tsx scripts/olderBuildForTests.ts
  case $? in
    0) export KEEPER_REQUIRE_OLDER_BUILD=1 ;;
    3) ;;
    *) return 1 ;;
  esac
}
step older-build older_build
# tsc and ESLint are one core each and need nothing from each other: on 2 cores, run together.
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
step typecheck+lint both
results_dir=$(mktemp -d)
trap 'rm -rf "$results_dir"' EXIT
# The web app first: the package test (npm pack) and e2e both serve this build.
test_step build-web npm run build -w web
KEEPER_VITEST_FILES="$results_dir/vitest-files.json" test_step vitest npx vitest run --reporter=default --reporter=./scripts/lib/testResults/vitestFileReporter.ts
if [[ ! -f playwright.config.ts ]]; then
  skip e2e "no playwright.config.ts yet"
elif [[ -z "$(find e2e -name '*.spec.ts' -print -quit 2>/dev/null)" ]]; then
  skip e2e "no e2e/**/*.spec.ts yet"
else
  # The specs two at a time (a Keeper and a sandbox each), then the timed ones alone on one lane;
  # both runs whatever the first found, so a failure there hides nothing here.
  e2e() {
    PLAYWRIGHT_JSON_OUTPUT_NAME="$results_dir/playwright.json" npx playwright test --project e2e --reporter=list,json
    local rc_parallel=$?
    KEEPER_E2E_LANES=1 PLAYWRIGHT_JSON_OUTPUT_NAME="$results_dir/playwright-alone.json" npx playwright test --project e2e-alone --no-deps --reporter=list,json
    local rc_alone=$?
    ((rc_parallel == 0 && rc_alone == 0))
  }
  test_step e2e e2e
fi

# Every test counted by vitest and Playwright; a flaky freshness/truth spec fails the run here.
report=$(npx tsx scripts/lib/testResults/cli.ts --vitest "$results_dir/vitest-files.json" --playwright "$results_dir/playwright.json" --playwright "$results_dir/playwright-alone.json" </dev/null)
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
