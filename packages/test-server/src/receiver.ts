import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { headers: http.IncomingHttpHeaders; body: string; path: string; at: number };

/** A real HTTP receiver on a loopback port, keeping every request; `respond` decides each answer (200 by default). */
export async function startReceiver(respond: (req: Received, res: http.ServerResponse) => unknown = (_r, res) => res.end('ok')) {
  const received: Received[] = [];
  const handler = { respond };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '/', at: Date.now() };
      received.push(entry);
      void handler.respond(entry, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    handler,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
