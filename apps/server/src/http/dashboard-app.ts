import { existsSync, readdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A file of the dashboard's build (or the page): its request is logged at debug, not info. */
    staticFile?: boolean;
  }
}

export type DashboardAppOptions = {
  log: Logger;
  /** The built app (apps/dashboard/dist); not served when absent. */
  dashboardDir: string;
  /** Serve the app's sources through Vite with hot reload (`pnpm dev`). */
  hotReload: boolean;
  /** The session cookie's name: its presence chooses a signed-in page's first frame. */
  sessionCookie: string;
};

type CreateViteServer = (options: object) => Promise<{
  middlewares: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  close(): Promise<void>;
}>;

/**
 * The app at /dashboard: built files with long caching for the hashed assets, and index.html for
 * every other path under /dashboard (the app routes in the browser). With hot reload (`pnpm dev`),
 * Vite serves the sources instead, on the same port.
 */
export async function serveDashboardApp(app: FastifyInstance, options: DashboardAppOptions) {
  // Every route from here on serves the app's files (and `/`'s redirect to them): a page load asks
  // for dozens, so their "request completed" lines are written at debug, not info (http/app.ts).
  app.addHook('onRoute', (route) => {
    if (route.url === '/' || route.url === '/dashboard' || route.url.startsWith('/dashboard/')) {
      route.config = { ...route.config, staticFile: true };
    }
  });
  // The address people type first: the customers' app (the API is under /api/v1, its reference at /docs).
  app.get('/', async (_request, reply) => reply.redirect('/dashboard', 302));
  const root = resolve(options.dashboardDir);
  if (options.hotReload) {
    const appRoot = resolve(root, '..');
    const require = createRequire(join(appRoot, 'package.json'));
    // Vite is the dashboard's dev dependency, resolved from there: production installs lack it.
    const { createServer } = (await import(pathToFileURL(require.resolve('vite')).href)) as { createServer: CreateViteServer };
    const vite = await createServer({ root: appRoot, server: { middlewareMode: true, hmr: { server: app.server } }, appType: 'spa' });
    app.addHook('onClose', async () => vite.close());
    const viaVite = (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      // The station and the signing page are pages of their own (station.html, sign.html), as the built app serves them below.
      if (STATION_PAGE.test(request.raw.url ?? ''))
        request.raw.url = (request.raw.url ?? '').replace(/^\/dashboard\/station\/?/, '/dashboard/station.html');
      else if (SIGN_PAGE.test(request.raw.url ?? '')) request.raw.url = '/dashboard/sign.html';
      vite.middlewares(request.raw, reply.raw, () => {
        reply.raw.statusCode = 404;
        reply.raw.end();
      });
    };
    app.get('/dashboard', viaVite);
    app.get('/dashboard/*', viaVite);
    return;
  }
  if (!existsSync(join(root, 'index.html'))) {
    options.log.warn({ dir: root }, 'the dashboard is not built (pnpm build): /dashboard answers 503');
    const notBuilt = async () => {
      throw new AppError('service_unavailable', 'The dashboard is not built: run pnpm build (pnpm start builds it)');
    };
    app.get('/dashboard', notBuilt);
    app.get('/dashboard/*', notBuilt);
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/dashboard/',
    wildcard: false,
    index: false,
    // The build writes .br and .gz copies beside each file (apps/dashboard/vite.config.ts): the
    // one the browser accepts is sent, with `Vary: Accept-Encoding`; others get the plain file.
    preCompressed: true,
    // Source maps are never served, whatever the folder holds (a build with DASHBOARD_SOURCEMAP=1
    // writes some): they would publish the app's sources. A `.map` URL answers 404.
    allowedPath: (pathName) => !pathName.endsWith('.map'),
    setHeaders: (res, path) => {
      res.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  // The pages' first frames that the build wrote (apps/dashboard/scripts/prerender.tsx).
  const frames = new Set(existsSync(join(root, 'frames')) ? readdirSync(join(root, 'frames')).filter((f) => f.endsWith('.html')) : []);
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    // A missing file is a 404, not the page: a stale tab asking for an old asset must not get HTML.
    if (/^\/dashboard\/assets\//.test(request.url) || /\.\w+$/.test(request.url.split('?')[0] as string)) {
      throw new AppError('not_found', `No file ${request.url.split('?')[0]}`);
    }
    // Its Content-Security-Policy and X-Frame-Options, as index.html's when fetched by name, come
    // from http/page-policy.ts.
    reply.header('cache-control', 'no-cache');
    const frame = frames.size > 0 ? firstFrame(request, options.sessionCookie, frames) : undefined;
    if (frame === undefined) return reply.sendFile('index.html');
    // Caches must tell the answers apart by what chose the frame.
    return reply.header('vary', 'Cookie, Accept-Language').sendFile(`frames/${frame}`);
  };
  app.get('/dashboard', page);
  app.get('/dashboard/*', page);
  // The kitchen station: the build's second page, with its own manifest and service worker
  // (docs/decisions/0007-the-kitchen-station.md); `?code=` from a pairing QR is read by the page.
  const stationPage = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').sendFile('station.html');
  app.get('/dashboard/station', stationPage);
  // A social entity's signing page (`/dashboard/sign/{donation_id}#dln_…`, http/surfaces/donation-link.ts):
  // the build's third page, none of the dashboard's code and no session. The link's token is in
  // the URL's fragment, which browsers never send: no request, and so no log line, holds it.
  const signPage = async (_request: FastifyRequest, reply: FastifyReply) => reply.header('cache-control', 'no-cache').sendFile('sign.html');
  app.get('/dashboard/sign/:donationId', signPage);
  // The same page for a certificate of donations to sign (`/dashboard/sign/certificate/{link_id}#dln_…`).
  app.get('/dashboard/sign/certificate/:linkId', signPage);
}

/** The station's address, with or without a trailing slash, with any query. */
const STATION_PAGE = /^\/dashboard\/station\/?(\?.*)?$/;
/** A signing page's address: one donation's id, or `certificate/` and a link's id, after /dashboard/sign/. */
const SIGN_PAGE = /^\/dashboard\/sign\/(certificate\/)?[^/?]+\/?(\?.*)?$/;

/** The dashboard's languages, the first its default (apps/dashboard/src/i18n/index.ts). */
const FRAME_LANGUAGES = ['es', 'en'];

/**
 * Which of the build's first frames (dist/frames/<page>.<language>.html) a page's address gets:
 * the page's own when the browser holds a session cookie (whether it is still valid is for the
 * app to find out), else the sign-in page's: the dashboard's sign-in.html, a page of its own
 * without the app's code, which moves to /dashboard/sign-in?redirect=<the page asked for>; in
 * the language the dashboard last used in this browser (its `merma_language` cookie), else the
 * first of the browser's languages that the dashboard speaks, else Spanish, as the app chooses.
 * Undefined for an address without a frame: index.html, whose #root is empty.
 */
export function firstFrame(request: FastifyRequest, sessionCookie: string, frames: ReadonlySet<string>): string | undefined {
  const path = (request.url.split('?')[0] as string).replace(/^\/dashboard\/?/, '').replace(/\/+$/, '');
  const cookies = fastifyCookie.parse(request.headers.cookie ?? '');
  const signedIn = cookies[sessionCookie] !== undefined;
  const page = path === 'sign-in' || !signedIn ? 'sign-in' : path === '' ? 'overview' : path;
  if (!signedIn && path !== '' && path !== 'sign-in' && !frames.has(`${path}.${FRAME_LANGUAGES[0]}.html`)) return undefined;
  const language = [cookies.merma_language, ...acceptedLanguages(request.headers['accept-language'])].find(
    (l): l is string => l !== undefined && FRAME_LANGUAGES.includes(l),
  );
  const file = `${page}.${language ?? FRAME_LANGUAGES[0]}.html`;
  return frames.has(file) ? file : undefined;
}

/** An Accept-Language header's languages (their base, lower case), most preferred first; none with q=0. */
function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((entry, order) => {
      const [tag = '', ...params] = entry.trim().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? 1,
      );
      return { base: tag.trim().toLowerCase().split('-')[0] ?? '', q: Number.isFinite(q) ? q : 0, order };
    })
    .filter((l) => l.q > 0 && l.base !== '')
    .sort((a, b) => b.q - a.q || a.order - b.order)
    .map((l) => l.base);
}
