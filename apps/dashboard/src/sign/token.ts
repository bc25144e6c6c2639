/**
 * The signing link's token (`dln_…`): it arrives in the URL's fragment
 * (`/dashboard/sign/{donation_id}#dln_…`), which browsers never send to a server, so no request
 * and no log line holds it.
 *
 * Where it is kept once read:
 * - **Not in the address bar**: the fragment is removed at once (`history.replaceState`), so the
 *   token is left in neither the browser's history nor a screenshot of the page.
 * - **In memory**, for the page's calls (`Authorization: Bearer`).
 * - **In sessionStorage, under the donation's id**, so that a reload (a pull-to-refresh, a phone
 *   that discarded the tab while the volunteer carried boxes) still opens the donation and, once
 *   signed, still downloads the note. sessionStorage belongs to this tab alone and ends with it;
 *   localStorage would outlive the visit on a shared device. It is dropped as soon as the server
 *   says the link no longer works (`forgetToken`).
 */

export const TOKEN_PREFIX = 'dln_';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const storageKey = (donationId: string) => `merma.sign.${donationId}`;

/** What the page reads its link from: `location`, `history` and `sessionStorage`, passed in so tests can give their own. */
export type LinkPlace = {
  location: Pick<Location, 'pathname' | 'search' | 'hash'>;
  history: Pick<History, 'replaceState' | 'state'>;
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
};

/** The donation's id from the page's path (`/dashboard/sign/{id}`), or null when it is not one. */
export function donationIdFrom(pathname: string): string | null {
  const id = /\/sign\/([^/]+)\/?$/.exec(pathname)?.[1];
  return id && UUID.test(id) ? id.toLowerCase() : null;
}

/**
 * Reads the link: the donation's id from the path, the token from the fragment (then removed from
 * the address bar and kept in sessionStorage) or, after a reload, from sessionStorage. A fragment
 * that is not a token is removed too, and is no token.
 */
export function takeLink(place: LinkPlace): { donationId: string | null; token: string | null } {
  const donationId = donationIdFrom(place.location.pathname);
  const fragment = place.location.hash.replace(/^#/, '');
  if (fragment) {
    place.history.replaceState(place.history.state, '', `${place.location.pathname}${place.location.search}`);
  }
  if (!donationId) return { donationId: null, token: null };
  let fromFragment: string | null = null;
  try {
    fromFragment = decodeURIComponent(fragment);
  } catch {
    fromFragment = null; // a malformed escape: not a token
  }
  if (fromFragment?.startsWith(TOKEN_PREFIX) && fromFragment.length > TOKEN_PREFIX.length) {
    write(place, donationId, fromFragment);
    return { donationId, token: fromFragment };
  }
  return { donationId, token: read(place, donationId) };
}

/** Drops the kept token: the server said the link no longer works. */
export function forgetToken(place: Pick<LinkPlace, 'storage'>, donationId: string): void {
  try {
    place.storage?.removeItem(storageKey(donationId));
  } catch {
    // storage blocked: nothing was kept
  }
}

function read(place: LinkPlace, donationId: string): string | null {
  try {
    const kept = place.storage?.getItem(storageKey(donationId)) ?? null;
    return kept?.startsWith(TOKEN_PREFIX) ? kept : null;
  } catch {
    return null; // storage blocked (a private window's settings)
  }
}

function write(place: LinkPlace, donationId: string, token: string) {
  try {
    place.storage?.setItem(storageKey(donationId), token);
  } catch {
    // storage blocked or full: the token stays in memory only, and a reload needs the link again
  }
}

/** The page's own place: the real address bar, history and this tab's sessionStorage. */
export function browserPlace(): LinkPlace {
  let storage: Storage | null = null;
  try {
    storage = window.sessionStorage;
  } catch {
    storage = null;
  }
  return { location: window.location, history: window.history, storage };
}
