import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deadline } from '@merma/testing';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The README's first steps, as a newcomer meets them: `pnpm install` of a fresh checkout and
 * `pnpm start` stopped with Ctrl-C (SIGINT) or SIGTERM print no alarming line. (The install
 * output itself is checked by hand in a fresh clone; what makes it quiet is checked here.)
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/** Every workspace package's package.json (apps/*, packages/*, examples/*) and the root one. */
function workspacePackages(): string[] {
  const dirs = ['apps', 'packages', 'examples'].flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(ROOT, group, d.name, 'package.json')))
      .map((d) => join(group, d.name)),
  );
  return ['.', ...dirs];
}

describe('pnpm install of a fresh checkout', () => {
  it("links every package's bins: each bin target is a file in the repository, not a build output", () => {
    // pnpm links bins before anything is built; a target under dist/ makes every install warn
    // "Failed to create bin" once per package that depends on ours.
    const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n'));
    const targets = workspacePackages().flatMap((dir) => {
      const bin = readJson(join(ROOT, dir, 'package.json')).bin;
      const entries: [string, string][] = typeof bin === 'string' ? [['', bin]] : Object.entries((bin ?? {}) as Record<string, string>);
      return entries.map(([name, target]) => ({ name, target: join(dir, target).replaceAll('\\', '/') }));
    });
    expect(targets.map((t) => t.name)).toContain('merma-admin');
    expect(targets.filter((t) => !tracked.has(t.target))).toEqual([]);
  });

  it('decides for every installed dependency with an install script whether it runs (no "Ignored build scripts" box)', () => {
    const { onlyBuiltDependencies = [], ignoredBuiltDependencies = [] } = (readJson(join(ROOT, 'package.json')).pnpm ?? {}) as {
      onlyBuiltDependencies?: string[];
      ignoredBuiltDependencies?: string[];
    };
    expect(onlyBuiltDependencies.filter((name) => ignoredBuiltDependencies.includes(name))).toEqual([]);
    const decided = new Set([...onlyBuiltDependencies, ...ignoredBuiltDependencies]);
    const store = join(ROOT, 'node_modules/.pnpm');
    const withScripts = new Set<string>();
    for (const entry of readdirSync(store)) {
      const modules = join(store, entry, 'node_modules');
      if (!existsSync(modules)) continue;
      // The package itself is node_modules/<name> (or node_modules/@scope/name) under its store entry.
      // Store entries are named <name>@<version>[_peers], a scope's slash written as '+'.
      const name = entry.slice(0, entry.indexOf('@', 1)).replace('+', '/');
      const manifest = join(modules, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const scripts = (readJson(manifest).scripts ?? {}) as Record<string, string>;
      // What pnpm counts as a build: an install hook, or a binding.gyp (an implicit node-gyp build).
      if (scripts.preinstall || scripts.install || scripts.postinstall || existsSync(join(modules, name, 'binding.gyp'))) {
        withScripts.add(name);
      }
    }
    expect(withScripts.size).toBeGreaterThan(0);
    expect([...withScripts].filter((name) => !decided.has(name)).sort()).toEqual([]);
    // Nothing that reaches beyond the npm registry at install time (Prisma's engines download) is allowed.
    expect(onlyBuiltDependencies).not.toContain('@prisma/engines');
  });
});

describe('pnpm start, then stopped', { timeout: deadline(240_000) }, () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The README's `pnpm start` at the root, in a process group of its own as a terminal runs it. */
  async function startAndStop(signal: 'SIGINT' | 'SIGTERM') {
    const dataDir = mkdtempSync(join(tmpdir(), 'merma-start-'));
    dirs.push(dataDir);
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'development' };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'PUBLIC_URL', 'HOST']) delete env[name];
    const child = spawn('pnpm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      const giveUpAt = Date.now() + deadline(180_000);
      let url: string | undefined;
      while (!url && Date.now() < giveUpAt && child.exitCode === null) {
        url = /"msg":"Server listening at (http:\/\/[^"]+)"/.exec(output)?.[1];
        if (!url) await new Promise((r) => setTimeout(r, 100));
      }
      expect(url, output).toBeDefined();
      let ready = false;
      while (!ready && Date.now() < giveUpAt) {
        ready = await fetch(`${url}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
      }
      expect(ready, output).toBe(true);
      // A terminal's Ctrl-C (and `kill -- -PGID`) signals the whole foreground group: pnpm, the
      // shell and the server alike.
      process.kill(-(child.pid as number), signal);
      const code = await exited;
      return { code, output };
    } finally {
      if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    }
  }

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: the server drains and everything exits 0, with no ELIFECYCLE or error line',
    async (signal) => {
      const { code, output } = await startAndStop(signal);
      expect(output).toContain(`"signal":"${signal}","msg":"shutting down`);
      expect(output).not.toMatch(/ELIFECYCLE|ERR_PNPM|Command failed/);
      // No pino line at warn or above (level 40+).
      expect(output.split('\n').filter((line) => /^\{"level":(4|5|6)\d/.test(line))).toEqual([]);
      expect(code, output).toBe(0);
    },
  );
});
