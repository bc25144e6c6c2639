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
 * deeper than `maxDepth` levels: an object's keys first, then its values in order. Every request
 * body goes through it, and nearly all of them hold nothing to report: the first walk makes no
 * path (no string per value, 3,500 for a batch of 500 records), and only a body that holds
 * something is walked again to name where.
 */
export function inspectJson(value: unknown, pattern: RegExp, maxDepth = Number.POSITIVE_INFINITY): Found | undefined {
  return offends(value, pattern, maxDepth) ? locate(value, pattern, maxDepth) : undefined;
}

function offends(value: unknown, pattern: RegExp, maxDepth: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop() as number;
    if (typeof v === 'string') {
      if (pattern.test(v)) return true;
    } else if (v !== null && typeof v === 'object') {
      if (depth >= maxDepth) return true;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          values.push(v[i]);
          depths.push(depth + 1);
        }
      } else {
        for (const key in v) {
          if (!Object.hasOwn(v, key)) continue;
          if (pattern.test(key)) return true;
          values.push((v as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

function locate(value: unknown, pattern: RegExp, maxDepth: number): Found | undefined {
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
        const entries = Object.entries(v);
        for (const [key] of entries) if (pattern.test(key)) return { path: path ? `${path}.${key}` : key, reason: 'text' };
        for (let i = entries.length - 1; i >= 0; i--) {
          const [key, child] = entries[i] as [string, unknown];
          stack.push([child, path ? `${path}.${key}` : key, depth + 1]);
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
