#!/usr/bin/env bash
# Installs what Keeper needs, and with --for-tests what its tests need. Idempotent: it
# only installs what is missing and says what it installs. Never prompts (CI=true, no stdin).
#
#   scripts/setup.sh [--for-tests] [--external-zk] [--secure]
#
#   --for-tests    also Chromium (Playwright uses Debian's, never a download), kazoo
#                  (Python lock recipes that make real lock nodes in the tests), Curator
#                  (Java lock recipes, the same), Prometheus (scrapes /metrics and fires
#                  the shipped alerting rules) and MIT Kerberos (a real KDC for the SASL
#                  GSSAPI tests; libkrb5-dev to build the optional kerberos addon, rebuilt
#                  here); the tests always need a local ZooKeeper.
#   --external-zk  Keeper will use an existing ensemble (--zk/--config): no local ZooKeeper
#                  needed. Implied by KEEPER_ZK or KEEPER_CONFIG.
#   --secure       `npm start -- --secure`: also openssl, which makes the sandbox's CA and
#                  certificates (keytool comes with the JRE). Implied by --for-tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

for_tests=0
external_zk=0
secure=0
for arg in "$@"; do
  case "$arg" in
    --for-tests) for_tests=1 ;;
    --external-zk) external_zk=1 ;;
    --secure) secure=1 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "setup: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -n "${KEEPER_ZK:-}" || -n "${KEEPER_CONFIG:-}" ]]; then external_zk=1; fi

say() { echo "setup: $*"; }
export DEBIAN_FRONTEND=noninteractive

# --- Node and the npm packages ------------------------------------------------------
if ! command -v node >/dev/null || ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "setup: Node.js 20.19 or newer is required (found: $(node --version 2>/dev/null || echo none))." >&2
  exit 1
fi
# npm writes node_modules/.package-lock.json on every install: older than the lock file
# means someone changed the dependencies since.
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund </dev/null
else
  say "npm packages are up to date"
fi

# --- System packages ----------------------------------------------------------------
have_zookeeper() {
  [[ -f /usr/share/java/zookeeper.jar ]] && return 0
  [[ -n "${ZOOKEEPER_HOME:-}" ]] && compgen -G "${ZOOKEEPER_HOME}/lib/*.jar" >/dev/null
}
have_java() { command -v java >/dev/null || [[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]]; }
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"

missing=()
if ((for_tests || !external_zk)); then
  if ! have_zookeeper; then
    missing+=(zookeeper) # Debian's package depends on a JRE
  elif ! have_java; then
    missing+=(default-jre-headless)
  fi
fi
# A TLS sandbox's certificates are made with openssl (scripts/sandbox/certificates.ts).
if ((for_tests || secure)); then
  command -v openssl >/dev/null || missing+=(openssl)
fi
if ((for_tests)); then
  [[ -x "$chromium_path" ]] || missing+=(chromium)
  # kazoo must be importable by /usr/bin/python3: the first python3 on PATH may be another.
  /usr/bin/python3 -c 'import kazoo' >/dev/null 2>&1 || missing+=(python3-kazoo)
  # Curator's recipes jar names its dependencies (curator-framework, guava...) in its manifest.
  [[ -f /usr/share/java/curator-recipes.jar ]] || missing+=(libcurator-recipes-java)
  # A real Prometheus scrapes /metrics and fires the shipped alerting rules (promtool checks them).
  command -v prometheus >/dev/null && command -v promtool >/dev/null || missing+=(prometheus)
  # SASL GSSAPI is tested against a real MIT KDC (kdb5_util and krb5kdc; kadmin.local for principals);
  # Keeper's optional kerberos addon builds against MIT's GSSAPI headers.
  [[ -x /usr/sbin/krb5kdc && -x /usr/sbin/kdb5_util ]] || missing+=(krb5-kdc)
  [[ -x /usr/sbin/kadmin.local ]] || missing+=(krb5-admin-server)
  [[ -f /usr/include/gssapi/gssapi.h ]] || missing+=(libkrb5-dev)
  # nginx terminates TLS in front of Keeper with the README's site file (docs/nginx/keeper.conf).
  [[ -x /usr/sbin/nginx ]] || missing+=(nginx-light)
fi

# The optional kerberos addon (SASL GSSAPI) is built by npm where libkrb5-dev is present; npm ci
# skips it quietly otherwise. Built here from the installed Node's own headers (no download).
kerberos_addon() {
  ((for_tests)) || return 0
  node -e 'require("kerberos")' >/dev/null 2>&1 && return 0
  [[ -f /usr/include/gssapi/gssapi.h ]] || return 0
  say "building the kerberos addon (npm rebuild kerberos)"
  if [[ -f /usr/include/node/node_api.h ]]; then
    npm_config_nodedir=/usr npm rebuild kerberos </dev/null
  else
    npm rebuild kerberos </dev/null
  fi
}

if ((${#missing[@]} == 0)); then
  checked=()
  if ((for_tests || !external_zk)); then checked+=(ZooKeeper Java); fi
  if ((for_tests || secure)); then checked+=(openssl); fi
  if ((for_tests)); then checked+=(Chromium kazoo Curator Prometheus nginx Kerberos); fi
  if ((${#checked[@]})); then say "present: ${checked[*]}"; else say "no system packages needed"; fi
  kerberos_addon
  exit 0
fi

can_apt=1
why=""
if [[ ! -f /etc/debian_version ]] || ! command -v apt-get >/dev/null; then can_apt=0; why="this is not Debian (no apt-get)"; fi
if [[ "$(id -u)" != 0 ]]; then can_apt=0; why="${why:+$why and }not running as root"; fi

if ((!can_apt)); then
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
      apt-get update && apt-get install -y zookeeper chromium python3-kazoo libcurator-recipes-java \
        prometheus nginx-light krb5-kdc krb5-admin-server libkrb5-dev openssl
EOF
  exit 1
fi

say "installing ${missing[*]} (apt-get; about a minute on a fresh machine)"
apt-get update -q </dev/null
apt-get install -y -q -o DPkg::Lock::Timeout=300 "${missing[@]}" </dev/null
say "installed ${missing[*]}"
kerberos_addon
