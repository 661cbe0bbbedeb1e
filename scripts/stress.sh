#!/usr/bin/env bash
# A busy neighbour, for running the suite under load: N processes that spin on the CPU (default:
# one per core, which with the suite's own work keeps the machine at about twice its cores), for
# at most --seconds (default 3600), then they stop by themselves; also on Ctrl-C or TERM.
#
#   scripts/stress.sh [--loops N] [--seconds S] [-- command args...]
#
# With a command, the neighbour runs while the command does and stops when it ends; the exit code
# is the command's. For example, issue 33's check that the suite passes at double load:
#   scripts/stress.sh -- env CI=true npm test
set -euo pipefail
loops=$(nproc)
seconds=3600
while (($#)); do
  case "$1" in
    --loops) loops=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --) shift; break ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "stress: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
pids=()
stop() { ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null; true; }
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
for ((i = 0; i < loops; i++)); do
  # timeout bounds each loop even if this script is killed with SIGKILL.
  timeout "$seconds" nice -n 0 sh -c 'while :; do :; done' &
  pids+=($!)
done
echo "stress: ${loops} busy loops for at most ${seconds}s (pids ${pids[*]})"
if (($#)); then
  set +e
  "$@"
  rc=$?
  set -e
  exit "$rc"
fi
wait
