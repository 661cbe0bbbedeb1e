#!/usr/bin/env bash
# npm start: setup (only what is missing), build the web app if its sources changed,
# then run Keeper (scripts/start.ts; see `npm start -- --help`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

setup_args=()
wants_help=0
for arg in "$@"; do
  case "$arg" in
    --zk | --zk=* | --config | --config=*) setup_args+=(--external-zk) ;;
    --secure) setup_args+=(--secure) ;;
    -h | --help) wants_help=1 ;;
  esac
done

if ((wants_help)) && [[ -d node_modules ]]; then
  exec node --import tsx scripts/start.ts "$@"
fi

bash scripts/setup.sh "${setup_args[@]}"

# The web app is rebuilt when anything it is built from is newer than the last build.
web_inputs=(web/src web/public web/index.html web/vite.config.ts web/build web/package.json shared/src)
if [[ ! -f web/dist/index.html ]] || [[ -n "$(find "${web_inputs[@]}" -newer web/dist/index.html -print -quit 2>/dev/null)" ]]; then
  echo "start: building the web app (npm run build -w web)"
  npm run build -w web
fi

# node --import tsx rather than npx tsx: one process, so a signal sent to it (or to the
# process group) reaches the code that closes the server and the sandbox in order.
exec node --import tsx scripts/start.ts "$@"
