#!/usr/bin/env bash
# Installs what Keeper needs, and with --for-tests what its tests need. Idempotent: it
# only installs what is missing and says what it installs. Never prompts (CI=true, no stdin).
# Ends by checking every part it promised, in one place (scripts/setup-verify.sh), and fails
# with one sentence naming what is missing: a test never finds a missing part later.
#
#   scripts/setup.sh [--for-tests] [--external-zk] [--secure] [--npm-only]
#
#   --for-tests    also Chromium (Playwright uses Debian's, never a download), kazoo
#                  (Python lock recipes that make real lock nodes in the tests), Curator
#                  (Java lock recipes, the same), Prometheus (scrapes /metrics and fires
#                  the shipped alerting rules), nginx (the shipped site file in front of
#                  Keeper) and MIT Kerberos (a real KDC for the SASL GSSAPI tests;
#                  libkrb5-dev to build the optional kerberos addon); the tests always need
#                  a local ZooKeeper. `npm start` never installs any of these.
#   --external-zk  Keeper will use an existing ensemble (--zk/--config): no local ZooKeeper
#                  needed. Implied by KEEPER_ZK or KEEPER_CONFIG.
#   --secure       `npm start -- --secure`: also openssl, which makes the sandbox's CA and
#                  certificates (keytool comes with the JRE). Implied by --for-tests.
#   --npm-only     only what the npm packages need (npm ci; with --for-tests first libkrb5-dev,
#                  the kerberos addon's headers), and no check at the end: npm test runs this
#                  first, then the full setup beside the web build, tsc and ESLint (apt's
#                  downloads and unpacking wait on the network and the disk, the build on the
#                  CPU), and no test starts before the full setup has checked every part.
#
# Order matters: Debian's packages come first, then the npm packages. The optional `kerberos`
# addon compiles against libkrb5-dev's headers, and npm drops an optional package whose build
# fails without a word; `npm rebuild` cannot bring back a package that is not there. So where the
# tests need it and it is missing (an `npm start` ran `npm ci` before the headers existed, say),
# the locked version is installed again once the headers are there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

for_tests=0
external_zk=0
secure=0
npm_only=0
for arg in "$@"; do
  case "$arg" in
    --for-tests) for_tests=1 ;;
    --external-zk) external_zk=1 ;;
    --secure) secure=1 ;;
    --npm-only) npm_only=1 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "setup: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -n "${KEEPER_ZK:-}" || -n "${KEEPER_CONFIG:-}" ]]; then external_zk=1; fi
((for_tests)) && secure=1
needs_zk=$((for_tests || !external_zk))

say() { echo "setup: $*"; }
export DEBIAN_FRONTEND=noninteractive
# shellcheck source=scripts/setup-parts.sh
source scripts/setup-parts.sh

# --- Node -----------------------------------------------------------------------------
if ! command -v node >/dev/null || ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "setup: Node.js 20.19 or newer is required (found: $(node --version 2>/dev/null || echo none))." >&2
  exit 1
fi

# --- Debian's packages, before npm (see the header) -------------------------------------
missing=()
((needs_zk)) && { have_zookeeper || missing+=(zookeeper); } # Debian's package depends on a JRE
((needs_zk)) && have_zookeeper && { have_java || missing+=(default-jre-headless); }
((secure)) && { have_openssl || missing+=(openssl); }
if ((for_tests)); then
  have_chromium || missing+=(chromium)
  have_kazoo || missing+=(python3-kazoo)
  have_curator || missing+=(libcurator-recipes-java)
  have_prometheus || missing+=(prometheus)
  have_kdc || missing+=(krb5-kdc krb5-admin-server)
  have_gssapi_headers || missing+=(libkrb5-dev)
  have_nginx || missing+=(nginx-light)
fi

# The npm stage installs only the kerberos addon's headers; the full setup reports the rest.
if ((npm_only)); then
  if [[ " ${missing[*]} " == *" libkrb5-dev "* ]]; then missing=(libkrb5-dev); else missing=(); fi
fi

if ((${#missing[@]})); then
  can_apt=1
  why=""
  if [[ ! -f /etc/debian_version ]] || ! command -v apt-get >/dev/null; then can_apt=0; why="this is not Debian (no apt-get)"; fi
  if [[ "$(id -u)" != 0 ]]; then can_apt=0; why="${why:+$why and }not running as root"; fi
  if ((!can_apt && npm_only)); then
    missing=() # the full setup names what is missing, and why, with what to do
  elif ((!can_apt)); then
    cat >&2 <<EOF
setup: missing: ${missing[*]}
setup: cannot install them here: ${why}. Do one of:
  * ZooKeeper: install a ZooKeeper 3.8+ release with a Java 11+ runtime and set
      ZOOKEEPER_HOME=/path/to/apache-zookeeper-3.8.x-bin   (its lib/*.jar are used)
    or use an existing ensemble instead of the local sandbox:
      npm start -- --zk host1:2181,host2:2181   (or KEEPER_ZK=..., or --config keeper.json)
  * Tests (npm test): also install Chromium at /usr/bin/chromium (or set CHROMIUM_PATH),
    the kazoo Python package for /usr/bin/python3 (Debian: python3-kazoo) and Apache
    Curator's recipes at /usr/share/java/curator-recipes.jar (Debian: libcurator-recipes-java).
  * On Debian as root this script does it all itself:
      apt-get update && apt-get install -y zookeeper chromium python3-kazoo libcurator-recipes-java \\
        prometheus nginx-light krb5-kdc krb5-admin-server libkrb5-dev openssl
EOF
    exit 1
  fi
fi
if ((${#missing[@]})); then
  say "installing ${missing[*]} (apt-get; about a minute on a fresh machine)"
  apt_began=$SECONDS
  # Package lists fetched in the last half hour (by the npm stage, say) are fresh enough.
  if [[ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*InRelease' -mmin -30 -print -quit 2>/dev/null)" ]]; then
    apt-get update -q </dev/null
  fi
  apt-get install -y -q -o DPkg::Lock::Timeout=300 "${missing[@]}" </dev/null
  say "installed ${missing[*]} in $((SECONDS - apt_began))s"
else
  say "no Debian package missing"
fi

# --- The npm packages ---------------------------------------------------------------
# npm writes node_modules/.package-lock.json on every install: older than the lock file
# means someone changed the dependencies since.
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund </dev/null
else
  say "npm packages are up to date"
fi
if ((for_tests)) && have_gssapi_headers && ! have_kerberos_addon; then
  version=$(node -p 'require("./package-lock.json").packages["node_modules/kerberos"].version')
  say "installing the kerberos addon again, now that libkrb5-dev is here (kerberos@${version}, built from source)"
  # The machine's Node headers (/usr/include/node) when present: node-gyp then downloads nothing.
  if [[ -f /usr/include/node/node_api.h ]]; then export npm_config_nodedir=/usr; fi
  npm install --no-save --no-audit --no-fund "kerberos@${version}" </dev/null
fi

if ((npm_only)); then
  say "npm packages ready (the full setup installs and checks the rest)"
  exit 0
fi

# --- Every part promised, checked in one place ------------------------------------------
verify_parts "$for_tests" "$needs_zk" "$secure"
