import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The Content-Security-Policy and X-Frame-Options of every answer, set in one onSend hook so that
 * no route can forget them: the dashboard's page handler, @fastify/static serving
 * `/dashboard/index.html` itself, the API reference at /docs, and any page added later.
 *
 * - Every `text/html` answer: a policy with `frame-ancestors 'none'` plus `X-Frame-Options: DENY`
 *   (for browsers that predate frame-ancestors), so no other site can frame a page and trick a
 *   signed-in user into clicking through it (ASVS 14.4.7).
 * - Every other answer: `default-src 'none'; frame-ancestors 'none'` (OWASP's advice for APIs): a
 *   JSON body or a CSV file opened in a tab runs nothing and cannot be framed. Scripts and styles
 *   served as files are not governed by their own header, so the pages that load them are unaffected.
 */
export function registerPagePolicies(app: FastifyInstance): void {
  /**
   * The reference page is the same text on every request (our fixed configuration, nothing from
   * the request), so the hashes of its inline scripts are taken from the first one sent and kept: a
   * page that later differed would not get its scripts allowed.
   */
  let docsPagePolicy: string | undefined;
  const pagePolicy = (request: FastifyRequest, payload: unknown): string => {
    const path = (request.url.split('?')[0] as string).replace(/\/+$/, '');
    if (path === '/dashboard' || path.startsWith('/dashboard/')) return DASHBOARD_POLICY;
    if (path === '/docs' && request.routeOptions.url === '/docs/') {
      if (docsPagePolicy === undefined && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
        docsPagePolicy = docsPolicy(inlineScriptHashes(payload.toString()));
      }
      return docsPagePolicy ?? docsPolicy([]);
    }
    return OTHER_PAGE_POLICY;
  };

  // Fastify's callback form: no promise for a hook that never waits (it runs on every answer).
  app.addHook('onSend', (request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (request.url.split('?')[0] === STATION_WORKER) {
      // A service worker runs under the policy its own script was sent with: it loads its workbox
      // runtime and fetches the files it precaches, from this origin only.
      reply.header('content-security-policy', WORKER_POLICY);
    } else if (typeof type === 'string' && /^text\/html\b/i.test(type)) {
      reply.header('content-security-policy', pagePolicy(request, payload));
      reply.header('x-frame-options', 'DENY');
    } else {
      reply.header('content-security-policy', NOT_A_PAGE);
    }
    done(null, payload);
  });
}

const NOT_A_PAGE = "default-src 'none'; frame-ancestors 'none'";

/** The kitchen station's service worker (apps/dashboard/vite.config.ts) and its policy. */
const STATION_WORKER = '/dashboard/station-sw.js';
const WORKER_POLICY = "default-src 'none'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

/**
 * The policy of our pages: everything from our own origin; scripts also from `scriptSources`;
 * inline styles allowed (Mantine sets CSS variables in style attributes and injects its
 * colour-scheme style element; Scalar injects its stylesheet — style injection cannot run script).
 */
function ownPagePolicy(scriptSources: string[] = [], extra: string[] = []): string {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...scriptSources].join(' '),
    "style-src 'self' 'unsafe-inline'",
    // blob: shows the photo a cook just took at the station before it is sent (an object URL of
    // the tablet's own file); a stored photo opens in a tab of its own, by its signed link.
    "img-src 'self' data: blob:",
    ...extra,
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** The dashboard (apps/dashboard's build): its own scripts only, no inline script. */
export const DASHBOARD_POLICY = ownPagePolicy();

/**
 * The API reference (@scalar/fastify-api-reference at /docs/): its bundle (`/docs/js/scalar.js`)
 * and one inline script that starts it with our fixed configuration, allowed by its SHA-256 hash
 * rather than 'unsafe-inline'. Styles need 'unsafe-inline': the bundle injects its stylesheet and
 * Vue renders `<style>` elements at run time, which a hash cannot name. It fetches /api/v1/openapi.json and, from the request panel, the API itself: same origin.
 */
function docsPolicy(inlineScriptHashes: string[]) {
  return ownPagePolicy(
    inlineScriptHashes.map((h) => `'sha256-${h}'`),
    ["font-src 'self' data:"],
  );
}

/** Any other page: nothing but its own files. */
const OTHER_PAGE_POLICY = "default-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'";

/** Base64 SHA-256 of each inline `<script>` element's text, as browsers compute it for CSP. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\ssrc\s*=/i.test(` ${attributes}`)) continue;
    hashes.push(
      createHash('sha256')
        .update(body ?? '', 'utf8')
        .digest('base64'),
    );
  }
  return hashes;
}
