import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { containerSettings } from '../scripts/container-settings.mjs';

type Settings = { port: number; metricsPort: number; databaseName: string };
const settingsOf = containerSettings as (env: Record<string, string | undefined>) => Promise<Settings>;

/** Whether 127.0.0.1:port can be bound now (what the container, on the host's network, will do). */
const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * `pnpm test:container` on a shared host: its ports and database are named by CONTAINER_PORT,
 * CONTAINER_METRICS_PORT and CONTAINER_DATABASE_NAME, and by default are ones no one else holds.
 */
describe('pnpm test:container settings', () => {
  it('by default takes two distinct ports that are free, and a database name of its own', async () => {
    const a = await settingsOf({});
    const b = await settingsOf({});
    expect(a.port).not.toBe(a.metricsPort);
    expect(await bindable(a.port)).toBe(true);
    expect(await bindable(a.metricsPort)).toBe(true);
    expect(a.databaseName).toMatch(/^merma_container_[0-9a-f]{8}$/);
    expect(b.databaseName).not.toBe(a.databaseName);
  });

  it('does not take a port someone holds', async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const heldPort = (held.address() as { port: number }).port;
    try {
      for (let i = 0; i < 20; i++) {
        const s = await settingsOf({});
        expect([s.port, s.metricsPort]).not.toContain(heldPort);
      }
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });

  it('uses the ports and database name the environment names', async () => {
    expect(await settingsOf({ CONTAINER_PORT: '41234', CONTAINER_METRICS_PORT: '41235', CONTAINER_DATABASE_NAME: 'ci_merma_7' })).toEqual({
      port: 41234,
      metricsPort: 41235,
      databaseName: 'ci_merma_7',
    });
    const portOnly = await settingsOf({ CONTAINER_PORT: '41234', CONTAINER_METRICS_PORT: '' });
    expect(portOnly.port).toBe(41234);
    expect(portOnly.metricsPort).not.toBe(41234);
  });

  it.each([
    [{ CONTAINER_PORT: 'http' }, /CONTAINER_PORT=http: expected a port number/],
    [{ CONTAINER_PORT: '70000' }, /CONTAINER_PORT=70000: expected a port number/],
    [{ CONTAINER_PORT: '41234', CONTAINER_METRICS_PORT: '41234' }, /CONTAINER_METRICS_PORT=41234: the same port as CONTAINER_PORT/],
    [{ CONTAINER_DATABASE_NAME: 'merma; DROP DATABASE postgres' }, /CONTAINER_DATABASE_NAME=.*: expected a lower-case PostgreSQL name/],
    [{ CONTAINER_DATABASE_NAME: 'Merma' }, /expected a lower-case PostgreSQL name/],
  ])('refuses %o', async (env, message) => {
    await expect(settingsOf(env)).rejects.toThrow(message);
  });
});
