import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Delivery = { body: string; headers: Record<string, string> };

export type Hub = {
  url: string;
  /** The receiver URL of one runtime: deliveries are POSTed here; GET `${url}/captured` lists them. */
  receiverUrl(runtime: string): string;
  /** Serves `/browser/` (the page) and `/browser/bundle.js` (the customer script bundled for browsers). */
  setBrowserPage(html: string, bundle: string): void;
  /** Where `/api/*` is proxied: the API server, known once it is started (it needs the hub's origin for CORS_ORIGINS). */
  setApiUrl(apiUrl: string): void;
  close(): Promise<void>;
};

/**
 * One loopback HTTP server for the test:
 * - `POST /hooks/<runtime>`: a webhook receiver; answers 200 and keeps the raw body and headers;
 *   `GET /hooks/<runtime>/captured` returns them as JSON, for the customer script to poll;
 * - `GET /browser/…`: the browser page and its bundle;
 * - `/api/*`: proxied to the API server, so the browser's requests are same-origin (no CORS) and
 *   so is its polling of its own receiver.
 */
export async function startHub(apiUrl?: string): Promise<Hub> {
  const deliveries = new Map<string, Delivery[]>();
  let page: { html: string; bundle: string } | undefined;
  let api = apiUrl ? new URL(apiUrl) : undefined;

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://hub').pathname;

    if (path.startsWith('/api/') && api) {
      const upstream = http.request(
        { host: api.hostname, port: api.port, method: req.method, path: req.url, headers: { ...req.headers, host: api.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (err) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy error: ${err.message}`);
      });
      req.pipe(upstream);
      return;
    }

    const hook = /^\/hooks\/([\w-]+)(\/captured)?$/.exec(path);
    if (hook) {
      const list = deliveries.get(hook[1] as string) ?? [];
      deliveries.set(hook[1] as string, list);
      if (hook[2] && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
        return;
      }
      if (!hook[2] && req.method === 'POST') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
          list.push({ body: Buffer.concat(chunks).toString('utf8'), headers });
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        });
        return;
      }
    }

    if (page && req.method === 'GET' && (path === '/browser/' || path === '/browser/bundle.js')) {
      const js = path.endsWith('.js');
      res
        .writeHead(200, { 'content-type': js ? 'text/javascript; charset=utf-8' : 'text/html; charset=utf-8' })
        .end(js ? page.bundle : page.html);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    receiverUrl: (runtime) => `${url}/hooks/${runtime}`,
    setBrowserPage(html, bundle) {
      page = { html, bundle };
    },
    setApiUrl(url) {
      api = new URL(url);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
