/**
 * Text PostgreSQL cannot store as given: NUL characters (refused in text and jsonb columns) and
 * unpaired UTF-16 surrogates (such as a JSON `\ud800` escape: the driver writes U+FFFD instead, so
 * the stored value would differ from the accepted one, and a record would no longer match its hash).
 */
export const NUL_CHARACTER = /\u0000/;
export const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

type Found = { path: string; reason: 'text' | 'depth' };

/**
 * Walks a parsed JSON value without recursion (any depth is safe) and returns the path
 * (`records.0.notes`) of the first key or string matching `pattern`, or of the first value nested
 * deeper than `maxDepth` levels.
 */
export function inspectJson(value: unknown, pattern: RegExp, maxDepth = Number.POSITIVE_INFINITY): Found | undefined {
  const stack: [unknown, string, number][] = [[value, '', 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [v, path, depth] = next;
    if (typeof v === 'string') {
      if (pattern.test(v)) return { path, reason: 'text' };
    } else if (v !== null && typeof v === 'object') {
      if (depth >= maxDepth) return { path, reason: 'depth' };
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path ? `${path}.${i}` : String(i), depth + 1]);
      } else {
        for (const [key, child] of Object.entries(v)) {
          const at = path ? `${path}.${key}` : key;
          if (pattern.test(key)) return { path: at, reason: 'text' };
          stack.push([child, at, depth + 1]);
        }
      }
    }
  }
  return undefined;
}

/** Path of the first key or string of a JSON value that matches `pattern`. */
export function findText(value: unknown, pattern: RegExp): string | undefined {
  return inspectJson(value, pattern)?.path;
}
