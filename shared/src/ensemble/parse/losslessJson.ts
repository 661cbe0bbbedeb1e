/**
 * JSON.parse that keeps big integers. The AdminServer prints session ids and zxids as JSON
 * numbers (`"session_id" : 216172985949683712`), beyond 2^53, where JSON.parse silently
 * rounds them to another session's id. Integer literals of 16+ digits outside strings are
 * turned into strings first; everything else is parsed as usual.
 */

// One pass: a string literal is consumed whole (so digits inside strings are never touched),
// a number literal is quoted only when it is a long integer.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

export function parseJsonLossless(text: string): unknown {
  const safe = text.replace(TOKEN, (token) => (token.startsWith('"') || !/^-?\d{16,}$/.test(token) ? token : `"${token}"`));
  return JSON.parse(safe);
}
