import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';

/**
 * compose.yaml, as `docker compose up` reads it with nothing set (its defaults): safe as written
 * (the server reachable through the TLS proxy only, which alone it believes) and complete (the
 * server's configuration passes production's rules, its links lead to the proxy, mail reaches the
 * catcher). Registry images cannot be pulled on the CI machines, so the stack itself is not started
 * here; `pnpm test:container` runs the server's image.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const raw = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
const caddyfile = readFileSync(join(ROOT, 'deploy/Caddyfile'), 'utf8');
const dockerfile = readFileSync(join(ROOT, 'apps/server/Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');

/** Compose's interpolation with an empty environment: `${X:-default}` gives the default, `${X:?…}` fails. */
function interpolate(text: string): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::?([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (op === '?') throw new Error(`compose.yaml requires ${name} to be set: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

type Service = {
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  networks?: Record<string, { ipv4_address?: string }> | string[];
  depends_on?: Record<string, { condition: string }> | string[];
  command?: string[];
  user?: string;
};
const compose = parse(interpolate(raw), { merge: true }) as {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: { subnet: string; ip_range?: string }[] } }>;
};
const { proxy, server, keygen, mailpit } = compose.services as Record<string, Service>;
const runtimeEnv: Record<string, string> = Object.fromEntries(
  [...dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')).matchAll(/^ENV\s+(.+)$/gm)].flatMap((m) =>
    (m[1] as string)
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split('=') as [string, string]),
  ),
);

const dir = mkdtempSync(join(tmpdir(), 'merma-compose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('compose.yaml, as written', () => {
  it('needs nothing set to start: no required variable', () => {
    expect(raw).not.toMatch(/\$\{[A-Z0-9_]+:?\?/);
  });

  it('publishes no port of the server: only the proxy reaches it', () => {
    expect(server?.ports).toBeUndefined();
    expect(proxy?.ports).toEqual(['8443:443', '8080:80']);
    // What else is published listens on this machine's loopback only.
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === 'proxy') continue;
      for (const port of service.ports ?? []) expect(port, `${name} publishes ${port}`).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('the server believes forwarded headers from the proxy’s fixed address alone', () => {
    const address = (proxy?.networks as Record<string, { ipv4_address: string }> | undefined)?.merma?.ipv4_address;
    expect(address).toBe('172.30.77.10');
    expect(server?.environment?.TRUST_PROXY).toBe(address);
    const subnet = compose.networks.merma?.ipam.config[0]?.subnet;
    expect(subnet).toBe('172.30.77.0/24');
    expect(address?.startsWith((subnet as string).split('.').slice(0, 3).join('.'))).toBe(true);
  });

  it('no other container can be given the proxy’s address (it lies outside the range they draw from)', () => {
    // Without this, a second `up` may hand .10 to whichever container starts first and the proxy
    // cannot start (an IPAM error seen with podman after `down`).
    const range = compose.networks.merma?.ipam.config[0]?.ip_range;
    expect(range).toBe('172.30.77.128/25');
    const [base, bits] = (range as string).split('/');
    const last = (ip: string) => Number(ip.split('.')[3]);
    const address = (proxy?.networks as Record<string, { ipv4_address: string }> | undefined)?.merma?.ipv4_address ?? '';
    const first = last(base as string);
    expect(last(address) < first || last(address) >= first + 2 ** (32 - Number(bits))).toBe(true);
  });

  it('the proxy terminates TLS for PUBLIC_URL’s host and port and passes requests to the server’s port', () => {
    const publicUrl = new URL(server?.environment?.PUBLIC_URL as string);
    expect(publicUrl.protocol).toBe('https:');
    expect(proxy?.ports?.[0]?.split(':')[0]).toBe(publicUrl.port);
    expect(proxy?.environment?.MERMA_SITE).toBe(publicUrl.hostname);
    expect(caddyfile).toMatch(/^\{\$MERMA_SITE:localhost\} \{/m);
    expect(caddyfile).toContain(`reverse_proxy server:${runtimeEnv.PORT}`);
    expect(proxy?.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('plain HTTP is sent to PUBLIC_URL, port included (Caddy’s own redirect would drop 8443)', () => {
    expect(proxy?.environment?.PUBLIC_URL).toBe(server?.environment?.PUBLIC_URL);
    expect(caddyfile).toMatch(/^http:\/\/\{\$MERMA_SITE:localhost\} \{\n\s*redir \{\$PUBLIC_URL\}\{uri\} 308\n\}/m);
  });

  it('mail goes to the catcher, and the key is generated once into the volume the server reads', () => {
    const smtp = new URL(server?.environment?.SMTP_URL as string);
    expect(smtp.hostname).toBe('mailpit');
    expect(smtp.port).toBe('1025');
    expect(mailpit?.ports).toEqual(['127.0.0.1:8025:8025']);
    const keyFile = server?.environment?.MERMA_ENCRYPTION_KEY_FILE as string;
    expect(keyFile).toBe('/keys/encryption.key');
    expect(server?.volumes).toContain('keys:/keys:ro');
    expect(keygen?.volumes).toContain('keys:/keys');
    expect(keygen?.command?.join(' ')).toContain(`'${keyFile}'`);
    expect(server?.depends_on).toMatchObject({ keygen: { condition: 'service_completed_successfully' } });
    expect(keygen?.image).toBe(server?.image);
  });

  it('the server’s configuration passes production’s rules (the image’s settings with compose’s)', () => {
    const key = join(dir, 'encryption.key');
    writeFileSync(key, `k1:${Buffer.alloc(32, 1).toString('base64')}\n`);
    const env: Record<string, string> = { ...runtimeEnv, ...server?.environment, MERMA_ENCRYPTION_KEY_FILE: key };
    expect(env.NODE_ENV).toBe('production');
    const config = loadConfig(env);
    expect(config.publicUrl).toBe('https://localhost:8443');
    expect(config.mail.transport).toBe('smtp');
    expect(config.trustProxy).toBe('172.30.77.10');
    expect(config.databaseUrl).toBe('postgresql://merma:merma@postgres:5432/merma');
    expect(config.encryptionKeys?.map((k) => k.id)).toEqual(['k1']);
  });
});
