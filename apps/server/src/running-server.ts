import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';

/**
 * Where the running server is reached, for `merma-admin` on the same machine: the server writes
 * `DATA_DIR/server.json` (`{ pid, url }`) once it listens and removes it when it stops, so the
 * links the CLI prints (the quickstart's sign-in link, an owner's invitation) point at the port
 * the server really chose (`PORT` given to the server only, or `PORT=0`) without repeating it.
 *
 * DATA_DIR rather than the database: the CLI already shares DATA_DIR with a server it works
 * beside (the embedded database, the development encryption key), and a row would name one
 * replica of many. Where the CLI runs elsewhere, PUBLIC_URL (required in production) names the
 * address anyway.
 */
const FILE = 'server.json';

type Address = { pid: number; url: string };

/** Whether a process with this id exists (EPERM: it does, under another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Writes this process's address (replacing a stopped server's) and returns what removes it. */
export function recordServerUrl(dataDir: string, url: string): () => void {
  const path = join(dataDir, FILE);
  mkdirSync(dataDir, { recursive: true });
  // Written whole then renamed, so a CLI reading at the same moment never sees half a file.
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify({ pid: process.pid, url } satisfies Address)}\n`);
  renameSync(partial, path);
  return () => {
    // Only its own: a second server on the same DATA_DIR may have written its address since.
    if (readAddress(path)?.pid === process.pid) rmSync(path, { force: true });
  };
}

function readAddress(path: string): Address | undefined {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as Partial<Address>;
    return typeof r.pid === 'number' && typeof r.url === 'string' ? { pid: r.pid, url: r.url } : undefined;
  } catch {
    return undefined;
  }
}

/** The address a live server recorded under DATA_DIR; undefined when none runs (or it was killed). */
export function runningServerUrl(dataDir: string): string | undefined {
  const record = readAddress(join(dataDir, FILE));
  return record && pidAlive(record.pid) ? record.url : undefined;
}

/**
 * The base of the links `merma-admin` prints: PUBLIC_URL when set (the operator said where people
 * reach the service), else the address the running server recorded, else `http://localhost:PORT`.
 */
export function publicUrlForCli(config: Pick<Config, 'publicUrl' | 'publicUrlSet' | 'dataDir'>): string {
  if (config.publicUrlSet) return config.publicUrl;
  return runningServerUrl(config.dataDir) ?? config.publicUrl;
}
