/**
 * `mntr`: "zk_<key>\t<value>" lines (tabs; some builds pad with spaces). Keys differ across
 * versions, so the result is a plain map without the zk_ prefix — the same keys the
 * AdminServer's `/commands/monitor` uses — and metrics are picked from it by name.
 */

/** key (without zk_) -> raw value; an empty map when nothing looks like mntr. */
export function parseMntr(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^zk_([A-Za-z0-9_]+)[\t ]+(.*)$/.exec(line.trimEnd());
    if (match) values.set(match[1]!.toLowerCase(), match[2]!.trim());
  }
  return values;
}
