#!/usr/bin/env node
/**
 * `pnpm test:compose`: starts compose.yaml as the README's "Deploying" section says (`compose up
 * --build -d`, then `merma-admin quickstart` inside), and checks the stack the way an operator and
 * their users meet it: everything through Caddy over HTTPS with its own authority's certificate,
 * plain HTTP sent to HTTPS, no port of the server published, an address that a client writes in
 * X-Forwarded-For ignored, the quickstart's key storing a record and its link signing in, an
 * invitation caught by Mailpit with a link on PUBLIC_URL, the encryption key generated once, and
 * the data still there after `compose down` and `up` again. One line per check, then
 * `N passed, M failed`; exit 1 when a check failed, 2 when nothing could be checked.
 *
 * The stack runs as its own compose project with its own ports and network, so it can run beside a
 * stack of yours, and is removed with its volumes at the end (COMPOSE_KEEP=true keeps it).
 *
 * Settings: COMPOSE_COMMAND (e.g. "docker compose", "podman compose", "podman-compose"; found
 * otherwise), COMPOSE_SKIP_BUILD=true (use the image `merma-server:local` built already).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const results = [];
const check = (name, ok, detail) => {
  results.push(ok);
  console.log(`${ok ? 'ok    ' : 'FAILED'} ${name}${detail ? ` — ${detail}` : ''}`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const candidates = process.env.COMPOSE_COMMAND
  ? [process.env.COMPOSE_COMMAND]
  : ['docker compose', 'podman compose', 'podman-compose', 'docker-compose'];
const answers = (cmd) => {
  const [bin, ...args] = cmd.split(' ');
  return spawnSync(bin, [...args, 'version'], { stdio: 'ignore' }).status === 0;
};
const composeCommand = candidates.find(answers);
if (!composeCommand) {
  console.log(`test:compose: no compose command answers (${candidates.join(', ')}): nothing was checked.`);
  process.exit(2);
}
const [bin, ...binArgs] = composeCommand.split(' ');
const engine = bin.startsWith('podman') ? 'podman' : 'docker';

// Its own project, ports and network: it neither meets nor disturbs a stack already running.
const project = `merma-check-${randomBytes(3).toString('hex')}`;
const httpsPort = 20000 + randomInt(10000);
const octet = 100 + randomInt(150);
const env = {
  ...process.env,
  COMPOSE_PROJECT_NAME: project,
  HTTPS_PORT: String(httpsPort),
  HTTP_PORT: String(httpsPort + 1),
  MAILPIT_PORT: String(httpsPort + 2),
  MERMA_NETWORK_PREFIX: `172.30.${octet}`,
  PUBLIC_URL: `https://localhost:${httpsPort}`,
};
const compose = (args, options = {}) =>
  spawnSync(bin, [...binArgs, '-p', project, ...args], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64e6, ...options });
const inside = (service, command) => compose(['exec', '-T', service, ...command]);
const psql = (sql) => inside('postgres', ['psql', '-U', 'merma', '-d', 'merma', '-Atc', sql]);
console.log(`test:compose with \`${composeCommand}\`, project ${project}, https://localhost:${httpsPort}`);

let ca;
/** A request to the stack through Caddy, trusting Caddy's own root certificate only. */
function https(method, path, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: 'localhost',
        port: httpsPort,
        method,
        path,
        ca,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
async function until(what, timeoutMs, probe) {
  const started = Date.now();
  let last;
  while (Date.now() - started < timeoutMs) {
    try {
      last = await probe();
      if (last) return { ok: true, seconds: (Date.now() - started) / 1000 };
    } catch (err) {
      last = err.message;
    }
    await sleep(1000);
  }
  return { ok: false, seconds: (Date.now() - started) / 1000, last: `${what}: ${last}` };
}
const readyThroughProxy = async () => {
  if (!ca) {
    const root = inside('proxy', ['cat', '/data/caddy/pki/authorities/local/root.crt']);
    if (root.status !== 0 || !root.stdout.includes('BEGIN CERTIFICATE')) return false;
    ca = root.stdout;
  }
  return (await https('GET', '/readyz')).status === 200;
};

try {
  // 1. The README's first command.
  const started = Date.now();
  const upArgs = process.env.COMPOSE_SKIP_BUILD === 'true' ? ['up', '-d'] : ['up', '--build', '-d'];
  const up = compose(upArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  check(`\`compose ${upArgs.join(' ')}\` from the checkout`, up.status === 0, `${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (up.status !== 0) throw new Error(up.stderr.split('\n').slice(-5).join(' | '));
  const ready = await until('GET /readyz through the proxy', 180_000, readyThroughProxy);
  check(
    'ready over HTTPS through Caddy, with the certificate of its own authority',
    ready.ok,
    ready.ok ? `${ready.seconds.toFixed(0)} s after \`up\` returned` : ready.last,
  );
  if (!ready.ok) throw new Error(compose(['logs', '--tail', '30', 'server']).stdout);

  // 2. Only the proxy is reachable, and it alone is believed.
  const plain = await fetch(`http://localhost:${httpsPort + 1}/api/v1/destinos`, { redirect: 'manual' }).catch((e) => e);
  check(
    'plain HTTP on HTTP_PORT is sent to HTTPS',
    plain.status === 308 && plain.headers?.get('location') === `${env.PUBLIC_URL}/api/v1/destinos`,
    `${plain.status ?? plain.message} → ${plain.headers?.get?.('location')}`,
  );
  const containers = spawnSync(engine, ['ps', '-q', '--filter', `label=com.docker.compose.project=${project}`], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .filter(Boolean);
  const published = containers.flatMap((id) => {
    const ports = spawnSync(engine, ['port', id], { encoding: 'utf8' }).stdout.trim();
    return ports
      ? ports
          .split('\n')
          .map((p) => `${spawnSync(engine, ['inspect', '--format', '{{.Name}}', id], { encoding: 'utf8' }).stdout.trim()} ${p}`)
      : [];
  });
  check(
    'only the proxy (and Mailpit on loopback) publish ports',
    published.length > 0 && published.every((p) => /proxy.* -> 0\.0\.0\.0:|proxy.* -> \[?::\]?:|mailpit.* -> 127\.0\.0\.1:/.test(p)),
    published.join('; '),
  );
  const openapi = await https('GET', '/api/v1/openapi.json');
  check(
    'the API over HTTPS, with HSTS',
    openapi.status === 200 && /max-age=\d+/.test(String(openapi.headers['strict-transport-security'])),
    `${openapi.status}, strict-transport-security: ${openapi.headers['strict-transport-security']}`,
  );

  // 3. The README's second command, and what it prints at work.
  const qs = inside('server', ['merma-admin', 'quickstart']);
  let quick = {};
  try {
    quick = JSON.parse(qs.stdout);
  } catch {}
  const link = String(quick.dashboard?.sign_in_link ?? '');
  check(
    '`compose exec server merma-admin quickstart`: a test key, and a sign-in link on PUBLIC_URL',
    qs.status === 0 && /^svc_test_/.test(quick.key?.key ?? '') && link.startsWith(`${env.PUBLIC_URL}/dashboard/link?token=`),
    qs.status === 0 ? link.replace(/token=.*/, 'token=…') : qs.stderr.trim().split('\n').pop(),
  );
  const record = await https('POST', '/api/v1/records', {
    headers: { authorization: `Bearer ${quick.key?.key}`, 'idempotency-key': `check-${project}` },
    body: { food_category: 'bakery', weight_kg: 3.2, destino_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477b' },
  });
  check('its key stores a record over HTTPS (201)', record.status === 201, `${record.status}`);
  const spoofed = '203.0.113.77';
  const signIn = await https('POST', '/trpc/accounts.signInWithLink', {
    headers: { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': spoofed },
    body: { token: new URL(link || 'https://x/?token=').searchParams.get('token') },
  });
  const cookies = [].concat(signIn.headers['set-cookie'] ?? []);
  check(
    'its link signs in (a __Host- session cookie, Secure)',
    signIn.status === 200 && cookies.some((c) => /^__Host-merma_session=.+;.*Secure/i.test(c)),
    `${signIn.status} ${cookies.map((c) => c.split('=')[0]).join(', ')}`,
  );
  const seen = psql("SELECT ip FROM audit_events WHERE action = 'user.signed_in' ORDER BY created_at DESC LIMIT 1").stdout.trim();
  check(
    'an address written in X-Forwarded-For by the client is not believed (the audit log has the one Caddy saw)',
    seen !== '' && seen !== spoofed,
    `client sent ${spoofed}, audit log has ${seen || 'nothing'}`,
  );

  // 4. Mail reaches Mailpit, its link on PUBLIC_URL.
  const invitee = `owner-${project}@example.test`;
  const org = inside('server', ['merma-admin', 'org', 'create', '--name', 'Compose check', '--plan', 'basic', '--admin-email', invitee]);
  const mailed = await until('the invitation in Mailpit', 30_000, async () => {
    const list = await (await fetch(`http://127.0.0.1:${httpsPort + 2}/api/v1/messages`)).json();
    return list.messages?.find((m) => JSON.stringify(m.To).includes(invitee));
  });
  let mailText = '';
  if (mailed.ok) {
    const list = await (await fetch(`http://127.0.0.1:${httpsPort + 2}/api/v1/messages`)).json();
    const message = list.messages.find((m) => JSON.stringify(m.To).includes(invitee));
    mailText = message.Text ?? (await (await fetch(`http://127.0.0.1:${httpsPort + 2}/api/v1/message/${message.ID}`)).json()).Text;
  }
  check(
    '`merma-admin org create --admin-email`: the invitation caught by Mailpit, its link on PUBLIC_URL',
    org.status === 0 && mailed.ok && mailText.includes(`${env.PUBLIC_URL}/dashboard/invitation?token=`),
    org.status === 0 ? (mailed.ok ? `mailed to ${invitee}` : mailed.last) : org.stderr.trim().split('\n').pop(),
  );

  // 5. The encryption key: generated once into the volume, the server's to read.
  const key = inside('server', ['sh', '-c', 'stat -c "%u %a" /keys/encryption.key && cut -c1-3 /keys/encryption.key']);
  check(
    'the encryption key generated into the `keys` volume (uid 1000, 600, k1:)',
    key.stdout.trim() === '1000 600\nk1:',
    key.stdout.trim().replace(/\n/g, ', '),
  );

  // 6. `compose down` and `up` again: the records, the key and the organisation are still there.
  const before = psql('SELECT count(*) FROM records').stdout.trim();
  const keyBefore = inside('server', ['cat', '/keys/encryption.key']).stdout;
  const down = compose(['down'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const again = compose(['up', '-d'], { stdio: ['ignore', 'ignore', 'pipe'] });
  ca = undefined;
  const readyAgain =
    down.status === 0 && again.status === 0
      ? await until('ready again', 180_000, readyThroughProxy)
      : { ok: false, last: down.stderr + again.stderr };
  const after = readyAgain.ok ? psql('SELECT count(*) FROM records').stdout.trim() : '';
  const list = readyAgain.ok
    ? await https('GET', '/api/v1/records?limit=5', { headers: { authorization: `Bearer ${quick.key?.key}` } })
    : { status: 0 };
  check(
    '`compose down` then `up -d`: same records, same encryption key, the key still works',
    readyAgain.ok &&
      before === after &&
      Number(after) >= 1 &&
      list.status === 200 &&
      inside('server', ['cat', '/keys/encryption.key']).stdout === keyBefore,
    readyAgain.ok ? `${before} → ${after} records, GET /records ${list.status}` : readyAgain.last,
  );
} catch (err) {
  check('the checks ran to the end', false, String(err.message).split('\n').slice(0, 8).join(' | '));
} finally {
  if (process.env.COMPOSE_KEEP === 'true') console.log(`kept: ${composeCommand} -p ${project} down -v`);
  else compose(['down', '-v'], { stdio: 'ignore' });
}

const failed = results.filter((ok) => !ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
