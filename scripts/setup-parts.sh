#!/usr/bin/env bash
# The parts scripts/setup.sh promises, each with the one check that says it is there: setup uses
# them to decide what to install, and verify_parts checks them all again at its end. Sourced.

chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"

have_zookeeper() {
  [[ -f /usr/share/java/zookeeper.jar ]] && return 0
  [[ -n "${ZOOKEEPER_HOME:-}" ]] && compgen -G "${ZOOKEEPER_HOME}/lib/*.jar" >/dev/null
}
have_java() { command -v java >/dev/null || [[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]]; }
have_openssl() { command -v openssl >/dev/null; }
have_chromium() { [[ -x "$chromium_path" ]]; }
# kazoo must be importable by /usr/bin/python3: the first python3 on PATH may be another.
have_kazoo() { /usr/bin/python3 -c 'import kazoo' >/dev/null 2>&1; }
# Curator's recipes jar names its dependencies (curator-framework, guava...) in its manifest.
have_curator() { [[ -f /usr/share/java/curator-recipes.jar && -f /usr/share/java/curator-framework.jar ]]; }
# promtool checks the shipped alerting rules; prometheus scrapes /metrics in the tests.
have_prometheus() { command -v prometheus >/dev/null && command -v promtool >/dev/null; }
# A real MIT KDC for the SASL GSSAPI tests: kdb5_util and krb5kdc, kadmin.local for principals.
have_kdc() { [[ -x /usr/sbin/krb5kdc && -x /usr/sbin/kdb5_util && -x /usr/sbin/kadmin.local ]]; }
have_gssapi_headers() { [[ -f /usr/include/gssapi/gssapi.h ]]; }
have_nginx() { [[ -x /usr/sbin/nginx ]]; }
have_kerberos_addon() { node -e 'require("kerberos")' >/dev/null 2>&1; }
have_npm_packages() { [[ -d node_modules ]] && node -e 'require.resolve("node-zookeeper-client"); require.resolve("vitest/package.json"); require.resolve("@playwright/test/package.json")' >/dev/null 2>&1; }

# verify_parts FOR_TESTS NEEDS_ZK SECURE: every promised part, checked; one sentence naming each
# one missing (and exit 1), or one line naming all that were checked.
verify_parts() {
  local for_tests=$1 needs_zk=$2 secure=$3
  local checks=() absent=()
  checks+=("npm packages:have_npm_packages")
  if ((needs_zk)); then checks+=("ZooKeeper's jars:have_zookeeper" "Java:have_java"); fi
  if ((secure)); then checks+=("openssl:have_openssl"); fi
  if ((for_tests)); then
    checks+=(
      "Chromium at ${chromium_path}:have_chromium"
      "kazoo for /usr/bin/python3:have_kazoo"
      "Curator's recipes:have_curator"
      "Prometheus and promtool:have_prometheus"
      "nginx:have_nginx"
      "the Kerberos KDC:have_kdc"
      "the kerberos addon (require(\"kerberos\")):have_kerberos_addon"
    )
  fi
  local names=() entry
  for entry in "${checks[@]}"; do
    names+=("${entry%%:*}")
    "${entry##*:}" || absent+=("${entry%%:*}")
  done
  if ((${#absent[@]})); then
    local IFS=';'
    echo "setup: FAILED: setup finished, but these are still missing:${absent[*]/#/ }." >&2
    return 1
  fi
  local IFS=','
  echo "setup: verified:${names[*]/#/ }"
}
