// zod/mini: the same zod, in its tree-shakable form, so that the first bundle stays small.
import * as z from 'zod/mini';

/** Test data is the safe default: nothing in live mode changes until someone switches to it. */
export const MODES = ['test', 'live'] as const;
export type Mode = (typeof MODES)[number];

/**
 * Search params of every page inside the shell: the establishment and the mode (test or live data)
 * the page works on. Bad values fall back instead of failing the page.
 */
export const scopeSearch = z.object({
  establishment: z.catch(z.optional(z.uuid()), undefined),
  mode: z.catch(z._default(z.enum(MODES), 'test'), 'test'),
});
export type ScopeSearch = z.infer<typeof scopeSearch>;

/** A page of a paged list, 1-based. */
export const pageSearch = z.object({
  page: z.catch(z.optional(z.int().check(z.minimum(1))), undefined),
});

/** `?token=` of the pages reached from an e-mailed link. */
export const tokenSearch = z.object({
  token: z.catch(z.optional(z.string().check(z.maxLength(200))), undefined),
});

/** A path of this app (never another site): where to go after signing in. */
function isLocalPath(path: string) {
  return path.startsWith('/') && !path.startsWith('//') && !path.includes('\\');
}

export const signInSearch = z.object({
  redirect: z.catch(z.optional(z.string().check(z.maxLength(2000), z.refine(isLocalPath))), undefined),
});
