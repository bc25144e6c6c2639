import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/, lowest first. A file may import from its own layer and the layers below,
 * never from one above:
 *
 * 0. foundations: calendar.ts, config.ts, context.ts, errors.ts, limits.ts, log.ts, mail.ts, metrics.ts, redis.ts,
 *    running-server.ts (where the running server is reached, for the CLI), auth/ (API
 *    key format and hashing, dashboard tokens), secrets/, db/, tracing/, pdf/ (drawing PDF documents)
 * 1. the domain: events/ (the outbox) and modules/ (services, SQL, webhook delivery) — except
 *    the modules' api.ts and dashboard.ts files, which are the procedures
 * 2. procedures: trpc/ and modules/<name>/api.ts (REST) and dashboard.ts (the dashboard's /trpc)
 * 3. transports: http/, jobs/, admin/ (the CLI's commands)
 * 4. composition: services.ts, serve.ts, main.ts, admin.ts
 *
 * generated/ (the Prisma client) is below everything.
 */
const SRC = join(__dirname, '../src');

function layerOf(file: string): number {
  const path = relative(SRC, file).replaceAll('\\', '/');
  if (path.startsWith('generated/')) return -1;
  if (
    /^(calendar|config|context|errors|limits|log|mail|metrics|redis|running-server)\.ts$/.test(path) ||
    /^(secrets|db|auth|tracing|pdf)\//.test(path)
  )
    return 0;
  if (/^modules\/[^/]+\/(api|dashboard)\.ts$/.test(path)) return 2;
  if (path.startsWith('modules/') || path.startsWith('events/')) return 1;
  if (path.startsWith('trpc/')) return 2;
  if (path.startsWith('http/') || path.startsWith('jobs/') || path.startsWith('admin/')) return 3;
  if (/^(services|serve|main|admin)\.ts$/.test(path)) return 4;
  throw new Error(`${path} has no layer: add it to architecture.test.ts`);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'generated' ? [] : sources(path);
    return d.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the import graph of src/', () => {
  it('has no arrow from a lower layer to a higher one', () => {
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(40);
    const upward: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)) {
        const target = resolve(dirname(file), (spec as string).replace(/\.js$/, '.ts'));
        if (layerOf(target) > layerOf(file)) upward.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });
});

describe('where webhooks leave from', () => {
  /** The files of src/ that import `name` (as a value, not a type) from a module whose path ends with `module`. */
  function importersOf(name: string, module: string): string[] {
    return sources(SRC)
      .filter((file) =>
        [...readFileSync(file, 'utf8').matchAll(/^import \{([^}]*)\} from '([^']+)'/gm)].some(
          ([, names, spec]) =>
            (spec as string).endsWith(module) &&
            (names as string).split(',').some((n) => n.trim().replace(/^type\s+/, '') === name && !/^\s*type\s/.test(n)),
        ),
      )
      .map((file) => relative(SRC, file).replaceAll('\\', '/'))
      .sort();
  }

  // What lets a test conclude that nothing is on its way from the absence of delivery rows and
  // jobs (webhook-delivery.test.ts), instead of waiting a while and seeing nothing arrive.
  it('sends a webhook only from the delivery job, which sends the delivery row it is given', () => {
    expect(importersOf('sendWebhook', '/send.js')).toEqual(['modules/webhooks/attempt.ts']);
    expect(importersOf('deliver', '/attempt.js')).toEqual(['jobs/worker.ts']);
  });
});
