/** Case-insensitive substring filter over an already sorted list; an empty query returns the list itself. */
export function filterChildren(names: readonly string[], query: string): readonly string[] {
  const q = query.trim().toLowerCase();
  if (q === '') return names;
  return names.filter((n) => n.toLowerCase().includes(q));
}
