/**
 * Where `pnpm test:container` (container-check.mjs) puts what it makes on a host that others share:
 * the server's and the metrics' ports on the host's network, and the database it creates (and drops)
 * on CONTAINER_DATABASE_URL's PostgreSQL. Each may be named — CONTAINER_PORT,
 * CONTAINER_METRICS_PORT, CONTAINER_DATABASE_NAME — and by default is one nobody else holds: ports
 * the kernel reports free at the start (not a guessed range, where two runs or another service could
 * meet), and a database name with a random suffix. A bad value is refused with a message.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 now: the kernel picks it, and it is released for the container to take. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function portOf(env, name) {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : 0;
  if (port < 1 || port > 65535) throw new Error(`${name}=${value}: expected a port number (1–65535)`);
  return port;
}

/** @returns {Promise<{ port: number, metricsPort: number, databaseName: string }>} */
export async function containerSettings(env = process.env) {
  const databaseName = env.CONTAINER_DATABASE_NAME || `merma_container_${randomBytes(4).toString('hex')}`;
  // Written into CREATE/DROP DATABASE: a plain lower-case identifier only.
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(databaseName)) {
    throw new Error(`CONTAINER_DATABASE_NAME=${databaseName}: expected a lower-case PostgreSQL name (letters, digits, _; ≤ 63)`);
  }
  const port = portOf(env, 'CONTAINER_PORT') ?? (await freePort());
  let metricsPort = portOf(env, 'CONTAINER_METRICS_PORT');
  while (metricsPort === undefined || metricsPort === port) {
    if (metricsPort === port && env.CONTAINER_METRICS_PORT) {
      throw new Error(`CONTAINER_METRICS_PORT=${metricsPort}: the same port as CONTAINER_PORT`);
    }
    metricsPort = await freePort();
  }
  return { port, metricsPort, databaseName };
}
