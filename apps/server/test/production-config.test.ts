import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { createMailer, mailOptionsOf, redactLinks } from '../src/mail.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { createTenant, startTestApp, TEST_ENCRYPTION_KEY, type TestContext } from './helpers.js';

/**
 * What a production configuration must say, and what the server then believes: the proxies it
 * trusts (a spoofed X-Forwarded-For or -Proto changes nothing), the address in its links, how mail
 * leaves (never a live link in a log), and where the unauthenticated metrics port listens.
 */
const PRODUCTION = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgresql://merma:secret@db.example.com:5432/merma',
  MERMA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  PUBLIC_URL: 'https://merma.example.com',
  SMTP_URL: 'smtp://mail.example.com:587',
  TRUST_PROXY: '10.0.0.0/8',
};
const messageOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return 'accepted';
};

describe('a production configuration', () => {
  it('is complete with the key, the public https address and SMTP', () => {
    const config = loadConfig(PRODUCTION);
    expect(config.publicUrl).toBe('https://merma.example.com');
    expect(config.mail.transport).toBe('smtp');
  });

  it('refuses TRUST_PROXY=true (anyone could set their own address and pass HTTP as HTTPS), and a hop count anywhere', () => {
    expect(messageOf({ ...PRODUCTION, TRUST_PROXY: 'true' })).toMatch(/TRUST_PROXY: true believes X-Forwarded-For\/-Proto from anyone/);
    expect(messageOf({ ...PRODUCTION, TRUST_PROXY: '1' })).toMatch(/TRUST_PROXY: a hop count is not supported/);
    expect(messageOf({ TRUST_PROXY: '2' })).toMatch(/TRUST_PROXY: a hop count is not supported/);
    expect(messageOf({ ...PRODUCTION, TRUST_PROXY: '10.0.0.0/33' })).toMatch(/TRUST_PROXY: 10\.0\.0\.0\/33: expected addresses or CIDR/);
    expect(messageOf({ ...PRODUCTION, TRUST_PROXY: 'my-proxy' })).toMatch(/TRUST_PROXY: my-proxy/);
    expect(messageOf({ ...PRODUCTION, TRUST_PROXY: '0.0.0.0/0,::/0' })).toMatch(/TRUST_PROXY: 0\.0\.0\.0\/0, ::\/0: expected/);
    expect(messageOf({ ...PRODUCTION, TRUST_PROXY: '10.0.0.0/7' })).toMatch(/TRUST_PROXY: 10\.0\.0\.0\/7/);
    expect(loadConfig({ ...PRODUCTION, TRUST_PROXY: 'fc00::/7' }).trustProxy).toBe('fc00::/7');
    // IPv6 ranges holding the IPv4-mapped range would trust every IPv4 client on a dual-stack socket.
    for (const range of ['::ffff:0:0/96', '::/7', '::/80', '::ffff:0:0/95', '::ffff:10.0.0.0/104', '::ffff:10.0.0.1']) {
      expect(messageOf({ ...PRODUCTION, TRUST_PROXY: `10.0.0.0/8,${range}` }), range).toMatch(
        new RegExp(`TRUST_PROXY: ${range.replaceAll('.', '\\.')}: overlaps the IPv4-mapped range ::ffff:0:0/96`),
      );
      expect(messageOf({ TRUST_PROXY: range }), range).toMatch(/overlaps the IPv4-mapped range/); // development too
    }
    // Beside it, not in it: IPv4-compatible ::/96, and IPv6 ranges of proxies.
    expect(loadConfig({ ...PRODUCTION, TRUST_PROXY: '::/96,fd00::/8,2001:db8::/32,::1' }).trustProxy).toBe(
      '::/96,fd00::/8,2001:db8::/32,::1',
    );
    expect(loadConfig({ ...PRODUCTION, TRUST_PROXY: '10.0.0.0/8, fd00::/8,loopback' }).trustProxy).toBe('10.0.0.0/8,fd00::/8,loopback');
    expect(loadConfig({ ...PRODUCTION, TRUST_PROXY: '192.0.2.10' }).trustProxy).toBe('192.0.2.10');
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true); // development and tests
    expect(loadConfig({}).trustProxy).toBe(false);
  });

  it('requires TRUST_PROXY: HTTPS reaches the server only through a proxy, so without one it would refuse every request', () => {
    const { TRUST_PROXY: _, ...withoutProxy } = PRODUCTION;
    expect(messageOf(withoutProxy)).toMatch(/TRUST_PROXY: required when NODE_ENV=production: the server does not terminate TLS/);
    expect(messageOf({ ...withoutProxy, TRUST_PROXY: 'false' })).toMatch(/TRUST_PROXY: required when NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: 'development' }).trustProxy).toBe(false); // development: plain HTTP is served
  });

  it('does not require REDIS_URL (one replica needs none)', () => {
    expect(loadConfig(PRODUCTION).redisUrl).toBeUndefined();
  });

  it('requires DATABASE_URL: a missing or misspelt one does not fall back to the embedded database', () => {
    const { DATABASE_URL: _, ...withoutDatabase } = PRODUCTION;
    expect(messageOf(withoutDatabase)).toMatch(
      /DATABASE_URL: required when NODE_ENV=production, as postgresql:\/\/.*embedded database .* for development/,
    );
    expect(messageOf({ ...withoutDatabase, DATABSE_URL: PRODUCTION.DATABASE_URL })).toMatch(/DATABASE_URL: required/);
    expect(loadConfig({}).databaseUrl).toBeUndefined(); // development: the embedded database
  });

  it('requires PUBLIC_URL, over https', () => {
    const { PUBLIC_URL: _, ...withoutUrl } = PRODUCTION;
    expect(messageOf(withoutUrl)).toMatch(/PUBLIC_URL: required when NODE_ENV=production, as https:\/\//);
    expect(messageOf({ ...PRODUCTION, PUBLIC_URL: 'http://merma.example.com' })).toMatch(/PUBLIC_URL: required/);
    expect(loadConfig({}).publicUrl).toBe('http://localhost:3000');
  });

  it('requires SMTP_URL unless MAIL_TO_LOG=true says explicitly to log mail', () => {
    const { SMTP_URL: _, ...withoutSmtp } = PRODUCTION;
    expect(messageOf(withoutSmtp)).toMatch(/SMTP_URL: required when NODE_ENV=production .* set MAIL_TO_LOG=true/);
    expect(loadConfig({ ...withoutSmtp, MAIL_TO_LOG: 'true' }).mail.transport).toBe('log');
    expect(loadConfig({}).mail.transport).toBe('files');
  });

  it('listens for metrics on 127.0.0.1 unless METRICS_HOST says otherwise, whatever HOST is', () => {
    const config = loadConfig({ ...PRODUCTION, HOST: '0.0.0.0' });
    expect(config.host).toBe('0.0.0.0');
    expect(config.metrics).toMatchObject({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ ...PRODUCTION, METRICS_HOST: '0.0.0.0' }).metrics.host).toBe('0.0.0.0');
  });
});

describe('production without REDIS_URL', () => {
  it(
    'starts, says in its log that each replica keeps its own limits, and reports merma_rate_limits_shared 0',
    async () => {
      const lines: { level: number; msg: string }[] = [];
      const logStream = new Writable({
        write(chunk, _enc, done) {
          for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
          done();
        },
      });
      const t = await startTestApp({ config: { NODE_ENV: 'production', REDIS_URL: '' }, logStream, logLevel: 'info' });
      try {
        const warning = lines.find((l) => l.msg.startsWith('REDIS_URL is not set'));
        expect(warning?.level).toBe(40);
        expect(warning?.msg).toMatch(/with N replicas clients get N times every limit/);
        const gauge = await t.metrics.registry.getSingleMetric('merma_rate_limits_shared')?.get();
        expect(gauge?.values.map((v) => v.value)).toEqual([0]);
        // It serves: the probe answers over plain HTTP, the API only through the proxy's HTTPS.
        expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
      } finally {
        await t.close();
      }
    },
    deadline(60_000),
  );

  it(
    'with REDIS_URL, shares its limits and says nothing about it',
    async () => {
      if (!process.env.REDIS_URL) return; // needs a Redis (the CI's second run has one)
      const lines: { msg: string }[] = [];
      const logStream = new Writable({
        write(chunk, _enc, done) {
          for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
          done();
        },
      });
      const t = await startTestApp({ config: { NODE_ENV: 'production' }, logStream, logLevel: 'info' });
      try {
        expect(lines.filter((l) => l.msg.startsWith('REDIS_URL is not set'))).toEqual([]);
        const gauge = await t.metrics.registry.getSingleMetric('merma_rate_limits_shared')?.get();
        expect(gauge?.values.map((v) => v.value)).toEqual([1]);
      } finally {
        await t.close();
      }
    },
    deadline(60_000),
  );
});

describe('behind one trusted proxy (TRUST_PROXY=loopback, production)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await startTestApp({ config: { NODE_ENV: 'production', TRUST_PROXY: 'loopback', REDIS_URL: '' } });
  }, deadline(60_000));
  afterAll(async () => {
    await t?.close();
  });

  it("the client's address is the one the proxy added, not one the client wrote into X-Forwarded-For", async () => {
    const tenant = await createTenant(t.db);
    const member = await createMember(t.db, tenant.organizationId, 'viewer');
    const res = await t.app.inject({
      method: 'POST',
      url: '/trpc/accounts.signIn',
      remoteAddress: '127.0.0.1',
      headers: {
        'content-type': 'application/json',
        'sec-fetch-site': 'same-origin',
        // The client sent "X-Forwarded-For: 6.6.6.6"; the proxy appended the address it saw.
        'x-forwarded-for': '6.6.6.6, 203.0.113.7',
        'x-forwarded-proto': 'https',
      },
      payload: JSON.stringify({ email: member.email, password: PASSWORD }),
    });
    expect(res.statusCode).toBe(200);
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { actor_user_id: member.id, action: 'user.signed_in' } });
    expect(audit.ip).toBe('203.0.113.7');
    const session = await t.db.userSession.findFirstOrThrow({ where: { user_id: member.id } });
    expect(session.ip).toBe('203.0.113.7');
  });

  it('a client that reaches the server directly cannot claim HTTPS or an address', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/destinos',
      remoteAddress: '198.51.100.9',
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '127.0.0.1' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden', error: 'HTTPS is required' });
  });

  it('the same proxy forwarding HTTPS is served', async () => {
    const tenant = await createTenant(t.db);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/destinos',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-proto': 'https', authorization: `Bearer ${tenant.key}` },
    });
    expect(res.statusCode).toBe(200);
  });
});

it('outside production, a client reaching the server directly cannot write its address into X-Forwarded-For', async () => {
  const t = await startTestApp({ config: { TRUST_PROXY: 'loopback', REDIS_URL: '' } });
  try {
    const tenant = await createTenant(t.db);
    const member = await createMember(t.db, tenant.organizationId, 'viewer');
    const res = await t.app.inject({
      method: 'POST',
      url: '/trpc/accounts.signIn',
      remoteAddress: '198.51.100.9',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', 'x-forwarded-for': '127.0.0.1, 203.0.113.7' },
      payload: JSON.stringify({ email: member.email, password: PASSWORD }),
    });
    expect(res.statusCode).toBe(200);
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { actor_user_id: member.id, action: 'user.signed_in' } });
    expect(audit.ip).toBe('198.51.100.9');
  } finally {
    await t.close();
  }
});

describe('mail without SMTP', () => {
  const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';
  const mail = {
    to: 'ana@example.com',
    subject: 'Reset your Merma password',
    text: `Open https://merma.example.com/dashboard/reset-password?token=${token} within an hour.`,
  };

  it('production with MAIL_TO_LOG=true logs the mail with its links redacted', async () => {
    const lines: string[] = [];
    const config = loadConfig({ ...PRODUCTION, SMTP_URL: '', MAIL_TO_LOG: 'true' });
    const mailer = createMailer({
      ...mailOptionsOf(config),
      log: { info: (obj: object, msg?: string) => void lines.push(JSON.stringify({ msg, ...obj })) },
    });
    await mailer.send(mail);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(token);
    expect(lines[0]).toContain('reset-password?token=[redacted]');
    expect(redactLinks('a?token=x&b=1 https://h/p?x=1&token=y#f')).toBe('a?token=[redacted]&b=1 https://h/p?x=1&token=[redacted]#f');
  });

  it('outside production each mail is a file under DATA_DIR/mail, and the log line names the file without the link', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'merma-mail-'));
    try {
      const lines: string[] = [];
      const config = loadConfig({ DATA_DIR: dir });
      const mailer = createMailer({ ...mailOptionsOf(config), log: { info: (obj: object) => void lines.push(JSON.stringify(obj)) } });
      await mailer.send(mail);
      const files = readdirSync(join(dir, 'mail'));
      expect(files).toHaveLength(1);
      const written = readFileSync(join(dir, 'mail', files[0] as string), 'utf8');
      expect(written).toContain(`token=${token}`);
      expect(written).toContain('To: ana@example.com');
      expect(lines.join('\n')).not.toContain(token);
      expect(lines.join('\n')).toContain(files[0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a production app with MAIL_TO_LOG logs no usable reset link', async () => {
    const lines: string[] = [];
    const { Writable } = await import('node:stream');
    const t = await startTestApp({
      config: { NODE_ENV: 'production', TRUST_PROXY: 'loopback', REDIS_URL: '' },
      logLevel: 'info',
      logStream: new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    try {
      const tenant = await createTenant(t.db);
      const member = await createMember(t.db, tenant.organizationId, 'admin');
      const worker = await t.startWorker({
        log: { info: (o: object, m?: string) => void lines.push(JSON.stringify({ m, ...o })), warn() {}, error() {}, debug() {} },
      });
      const browser = new DashboardBrowser(t.app);
      const res = await browser.raw(
        'mutation',
        'accounts.requestPasswordReset',
        { email: member.email },
        { headers: { 'x-forwarded-proto': 'https' } },
      );
      expect(res.statusCode).toBe(200);
      const giveUpAt = Date.now() + deadline(15_000);
      while (!lines.some((l) => l.includes('reset-password?token=')) && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 25));
      const logged = lines.filter((l) => l.includes('reset-password?token='));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/reset-password\?token=\[redacted\]/);
      await worker.stop();
    } finally {
      await t.close();
    }
  });
});
