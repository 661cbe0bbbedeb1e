#!/usr/bin/env bash
# npm test: setup for tests, then every check in order, stopping at the first failure:
# typecheck, lint, web build, unit + integration tests (vitest, real ZooKeeper), e2e
# (Playwright with Debian's Chromium). Ends with one summary line.
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

skip() {
  echo
  echo "==> $1: skipped ($2)"
  results+=(" $1 skipped")
}

step setup bash scripts/setup.sh --for-tests
step typecheck npm run typecheck
if [[ -f eslint.config.js ]]; then step lint npm run lint; else skip lint "no eslint.config.js yet"; fi
results_dir=$(mktemp -d)
trap 'rm -rf "$results_dir"' EXIT
# The web app first: the package test (npm pack) and e2e both serve this build.
step build-web npm run build -w web
step vitest npx vitest run --reporter=default --reporter=json --outputFile.json="$results_dir/vitest.json"
if [[ ! -f playwright.config.ts ]]; then
  skip e2e "no playwright.config.ts yet"
elif [[ -z "$(find e2e -name '*.spec.ts' -print -quit 2>/dev/null)" ]]; then
  skip e2e "no e2e/**/*.spec.ts yet"
else
  PLAYWRIGHT_JSON_OUTPUT_NAME="$results_dir/playwright.json" step e2e npx playwright test --reporter=list,json
fi

summary PASSED
# The plain closing line CI reads: every test counted by vitest and Playwright.
node scripts/lib/countResults.mjs "$results_dir/vitest.json" "$results_dir/playwright.json"
