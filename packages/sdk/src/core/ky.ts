/**
 * The part of ky the SDK uses, in a module of its own: `http.ts` imports it dynamically on the
 * first request, so the build keeps it as a separate chunk that a bundle verifying webhooks only
 * leaves out (ky's module-level feature detection cannot be tree-shaken).
 */
export { default as ky, HTTPError, TimeoutError } from 'ky';
