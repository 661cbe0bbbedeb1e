/** Byte sizes the way operators read them: "53 B", "64 KiB", "1.2 MiB" (binary units, as ZooKeeper's jute.maxbuffer). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'] as const;
  let value = n / 1024;
  let unit: (typeof units)[number] = 'KiB';
  for (let i = 1; i < units.length && value >= 1024; i++) {
    value /= 1024;
    unit = units[i] ?? unit;
  }
  // One decimal below 10 keeps "1.2 MiB" precise without "812.4 KiB" noise.
  const shown = value < 10 && !Number.isInteger(value) ? value.toFixed(1) : String(Math.round(value));
  return `${shown} ${unit}`;
}

/** "1,234" in the operator's locale-independent form (commas), for counts like 100,000 children. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
