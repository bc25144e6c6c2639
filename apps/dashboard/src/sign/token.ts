/**
 * The signing link's token (`dln_…`): it arrives in the URL's fragment, which browsers never send
 * to a server, so no request and no log line holds it. Two kinds of link open this page, read the
 * same way:
 *
 * - a donation's handover note: `/dashboard/sign/{donation_id}#dln_…`;
 * - the yearly certificate of Ley 49/2002 art. 24: `/dashboard/sign/certificate/{link_id}#dln_…`.
 *
 * Where the token is kept once read:
 * - **Not in the address bar**: the fragment is removed at once (`history.replaceState`), so the
 *   token is left in neither the browser's history nor a screenshot of the page.
 * - **In memory**, for the page's calls (`Authorization: Bearer`).
 * - **In sessionStorage, under the document's id**, so that a reload (a pull-to-refresh, a phone
 *   that discarded the tab while the volunteer carried boxes) still opens the document and, once
 *   signed, still downloads it. sessionStorage belongs to this tab alone and ends with it;
 *   localStorage would outlive the visit on a shared device. It is dropped as soon as the server
 *   says the link no longer works (`forgetToken`).
 */

export const TOKEN_PREFIX = 'dln_';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a link is for: a donation to answer and sign, or a year's certificate to sign. */
export type LinkKind = 'donation' | 'certificate';

/** The document a link opens: its kind and its id (a donation's, or the certificate link's). */
export type LinkTarget = { kind: LinkKind; id: string };

/** The address's path after `/sign/`, per kind. */
const PATHS: Record<LinkKind, RegExp> = {
  donation: /\/sign\/([^/]+)\/?$/,
  certificate: /\/sign\/certificate\/([^/]+)\/?$/,
};

/** A donation's key is the one the page has always used, so a tab opened before still finds its token. */
const storageKey = ({ kind, id }: LinkTarget) => (kind === 'donation' ? `merma.sign.${id}` : `merma.sign.${kind}.${id}`);

/** What the page reads its link from: `location`, `history` and `sessionStorage`, passed in so tests can give their own. */
export type LinkPlace = {
  location: Pick<Location, 'pathname' | 'search' | 'hash'>;
  history: Pick<History, 'replaceState' | 'state'>;
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
};

/** The document the page's path names (`/dashboard/sign/{id}`, `/dashboard/sign/certificate/{id}`), or null when it names none. */
export function linkTargetFrom(pathname: string): LinkTarget | null {
  for (const kind of ['certificate', 'donation'] as const) {
    const id = PATHS[kind].exec(pathname)?.[1];
    if (id) return UUID.test(id) ? { kind, id: id.toLowerCase() } : null;
  }
  return null;
}

/**
 * Reads the link: the document from the path, the token from the fragment (then removed from the
 * address bar and kept in sessionStorage) or, after a reload, from sessionStorage. A fragment that
 * is not a token is removed too, and is no token.
 */
export function takeLink(place: LinkPlace): { target: LinkTarget | null; token: string | null } {
  const target = linkTargetFrom(place.location.pathname);
  const fragment = place.location.hash.replace(/^#/, '');
  if (fragment) {
    place.history.replaceState(place.history.state, '', `${place.location.pathname}${place.location.search}`);
  }
  if (!target) return { target: null, token: null };
  let fromFragment: string | null = null;
  try {
    fromFragment = decodeURIComponent(fragment);
  } catch {
    fromFragment = null; // a malformed escape: not a token
  }
  if (fromFragment?.startsWith(TOKEN_PREFIX) && fromFragment.length > TOKEN_PREFIX.length) {
    write(place, target, fromFragment);
    return { target, token: fromFragment };
  }
  return { target, token: read(place, target) };
}

/** Drops the kept token: the server said the link no longer works. */
export function forgetToken(place: Pick<LinkPlace, 'storage'>, target: LinkTarget): void {
  try {
    place.storage?.removeItem(storageKey(target));
  } catch {
    // storage blocked: nothing was kept
  }
}

function read(place: LinkPlace, target: LinkTarget): string | null {
  try {
    const kept = place.storage?.getItem(storageKey(target)) ?? null;
    return kept?.startsWith(TOKEN_PREFIX) ? kept : null;
  } catch {
    return null; // storage blocked (a private window's settings)
  }
}

function write(place: LinkPlace, target: LinkTarget, token: string) {
  try {
    place.storage?.setItem(storageKey(target), token);
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
