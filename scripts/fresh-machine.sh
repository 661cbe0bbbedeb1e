#!/usr/bin/env bash
# A new-machine rehearsal: puts this machine back as near as it can to a brand-new one of its
# kind, clones the repository afresh and runs `CI=true npm test` there exactly as CI does
# (`bash .ci/run`, no standard input), then prints the time of each phase.
#
#   scripts/fresh-machine.sh --yes [--keep-packages] [--ref REF] [--dir DIR]
#
#   --yes            required: it purges Debian packages and deletes caches on this machine.
#   --keep-packages  leave the Debian packages and apt's lists installed (a warm-apt rehearsal).
#   --ref REF        what to clone (default: main of this checkout).
#   --dir DIR        where to clone (default: a new directory under /tmp).
#
# What it removes, and why each matters:
#  - the Debian packages setup installs, what they pulled in (autoremove), apt's downloaded
#    .debs and package lists: a new machine has none of them, and setup must fetch them;
#  - ~/.npm's cache: npm ci downloads every package again, as on a new machine;
#  - Keeper's caches (~/.cache/keeper: the JVM class archives, the older ZooKeeper build) and
#    sandbox state (~/.local/state/keeper, /tmp/keeper-*): the first JVMs pay for the archive.
# It never touches this checkout, other clones, or packages setup does not install.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

yes=0
keep_packages=0
ref=""
dir=""
while (($#)); do
  case "$1" in
    --yes) yes=1 ;;
    --keep-packages) keep_packages=1 ;;
    --ref) ref=$2; shift ;;
    --dir) dir=$2; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "fresh-machine: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if ((!yes)); then
  echo "fresh-machine: this purges Debian packages and deletes caches on this machine; run it again with --yes" >&2
  exit 2
fi
[[ "$(id -u)" == 0 ]] || { echo "fresh-machine: must run as root (it purges Debian packages)" >&2; exit 1; }
ref=${ref:-$(git -C "$here" rev-parse --abbrev-ref HEAD)}
dir=${dir:-$(mktemp -d /tmp/keeper-fresh.XXXXXX)}
say() { echo "fresh-machine: $*"; }
export DEBIAN_FRONTEND=noninteractive

# Keeper processes and JVMs a run left behind would hold ports and memory.
pkill -f 'org.apache.zookeeper.server.quorum.QuorumPeerMain' 2>/dev/null || true
pkill -f 'scripts/start.ts' 2>/dev/null || true

# The packages scripts/setup.sh installs (see its checks in scripts/setup-parts.sh).
SETUP_PACKAGES=(zookeeper libzookeeper-java chromium chromium-common python3-kazoo libcurator-recipes-java
  prometheus krb5-kdc krb5-admin-server libkrb5-dev nginx-light nginx-common)
if ((!keep_packages)); then
  installed=()
  for p in "${SETUP_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' && installed+=("$p")
  done
  if ((${#installed[@]})); then
    say "purging ${installed[*]}"
    apt-get purge -y -q "${installed[@]}" </dev/null >/dev/null
  fi
  apt-get autoremove --purge -y -q </dev/null >/dev/null
  apt-get clean
  rm -rf /var/lib/apt/lists/*
  say "Debian packages, apt's cache and lists removed"
fi
rm -rf "${HOME}/.npm/_cacache" "${XDG_CACHE_HOME:-$HOME/.cache}/keeper" "${XDG_STATE_HOME:-$HOME/.local/state}/keeper"
rm -rf /tmp/keeper-* 2>/dev/null || true
say "npm's cache, Keeper's caches and sandbox state removed"

rm -rf "$dir"
git clone -q --branch "$ref" "$here" "$dir"
say "cloned ${ref} ($(git -C "$dir" rev-parse --short HEAD)) into ${dir}; running CI=true bash .ci/run"
log="$dir.log"
began=$SECONDS
set +e
(cd "$dir" && CI=true bash .ci/run </dev/null 2>&1) | tee "$log"
rc=${PIPESTATUS[0]}
set -e
echo
say "exit ${rc} after $((SECONDS - began))s (log: ${log})"
# test.sh's own summary names each phase with its time; repeated here one a line.
grep -E '^test\.sh: ' "$log" | tail -1 | sed 's/^test\.sh: [^:]*://' | tr ',' '\n' | sed 's/^ */  /'
exit "$rc"
