import { csrfToken } from '../lib/csrf.ts';
import { codeFromStatus } from '../lib/status-code.ts';
import type { SignInValues } from './SignInForm.tsx';

/** How a sign-in ended: the session's cookies set, or the contract's error code (`network` when nothing answered). */
export type SignInResult = { ok: true } | { ok: false; code: string };

/**
 * Signs in through the dashboard's tRPC procedure `accounts.signIn` (one call, not batched: its
 * input is the body), with plain fetch: the sign-in page ships no tRPC client. The server sets the
 * session's cookies on success. A browser that still holds a session sends its CSRF token, as every
 * call of the app does (the server asks for it while a session exists).
 */
export async function signIn(values: SignInValues): Promise<SignInResult> {
  const token = csrfToken();
  let response: Response;
  try {
    response = await fetch('/trpc/accounts.signIn', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', ...(token ? { 'x-csrf-token': token } : {}) },
      body: JSON.stringify(values),
    });
  } catch {
    return { ok: false, code: 'network' };
  }
  if (response.ok) return { ok: true };
  // tRPC's error (`{error: {data: {app_code}}}`) or the contract's own (`{code}`, a rate limit's 429).
  const body: unknown = await response.json().catch(() => null);
  const error = (body as { error?: { data?: { app_code?: unknown } } } | null)?.error;
  const code = error?.data?.app_code ?? (body as { code?: unknown } | null)?.code;
  return { ok: false, code: typeof code === 'string' ? code : codeFromStatus(response.status) };
}
