import { isLocalPath } from '../lib/local-path.ts';

/** Where the dashboard is served. */
const BASE = '/dashboard';

/**
 * The sign-in page's address for the one the browser asked: the server sends the sign-in page for
 * every page of the app to a browser that holds no session (apps/server/src/http/dashboard-app.ts),
 * and the page, as the app's router would, moves to `/dashboard/sign-in?redirect=<that page>`
 * (the router's form of an address, without the base). Null when the browser is there already.
 */
export function signInAddress(pathname: string, search: string, hash: string): string | null {
  const page = pathname.replace(/^\/dashboard(?=\/|$)/, '').replace(/\/+$/, '');
  if (page === '/sign-in') return null;
  return `${BASE}/sign-in?${new URLSearchParams({ redirect: `${page || '/'}${search}${hash}` })}`;
}

/** Where a browser goes once signed in: the page named in `?redirect=` (this app's only), else the app's first page. */
export function destination(search: string): string {
  const redirect = new URLSearchParams(search).get('redirect');
  return redirect && isLocalPath(redirect) ? `${BASE}${redirect}` : `${BASE}/`;
}
