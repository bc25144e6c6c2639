#!/usr/bin/env node
/**
 * `pnpm test:security`: replays, over HTTP, the attacks of the security review against a running
 * server and prints one line per check and a summary `N held, M failed` (exit 1 when one failed).
 *
 *   MERMA_URL=http://127.0.0.1:3000 pnpm test:security
 *
 * It needs what an attacker who is also a customer has: an API key with every permission, a second
 * key with `catalog:read` only, and a dashboard session. It makes them with `merma-admin quickstart`
 * and `merma-admin key create` (run with this shell's environment, so DATABASE_URL or DATA_DIR must
 * name the server's database, as for the CLI itself): a demo organisation in test mode. It uses up
 * part of this address's per-IP allowances (10 sign-in attempts a day, and all 30 link attempts of
 * the hour: a second run from the same address within the hour stops at signing in, saying so);
 * run it against your own server only.
 *
 * Checks: (1) parallel password guesses and link tokens are limited; (2) every HTML page refuses
 * framing; (3) the records CSV holds one row per record and no cell a spreadsheet reads as a
 * formula; (4) an Idempotency-Key replay by a key without the permission is refused and shows no
 * secret; (10) crafted list cursors are 400; (11) very deep JSON bodies are 400 on every route;
 * (15) webhook URLs on IPv6 forms of internal IPv4 addresses are refused; (16) kitchen station
 * pairing codes cannot be guessed at speed, and a forged device token is refused; (17) a paired
 * device writes only as a station (its token is no API key), once per Idempotency-Key, within
 * its limit, and not at all once revoked; (18) a social entity's signing link is its own credential
 * (no API key, and no API key is one), names one donation, signs once, and cannot be guessed at speed;
 * a certificate's link opens its own certificate only; (19) only an image is stored as a photo,
 * served as one that runs nothing, and a photo's link opens that photo only, unaltered.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';

const BASE = (process.env.MERMA_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const results = [];

function admin(...args) {
  const out = execFileSync('pnpm', ['--silent', 'admin', ...args], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out);
}

/** fetch that waits out a 429 of the API's per-key limits (Retry-After), so the probe's own pace never decides a check. */
async function call(path, init = {}, { waitOn429 = true } = {}) {
  for (let i = 0; ; i++) {
    const res = await fetch(`${BASE}${path}`, { redirect: 'manual', ...init });
    if (res.status !== 429 || !waitOn429 || i >= 3) return res;
    const wait = Math.min(Number(res.headers.get('retry-after') ?? '1'), 65);
    await new Promise((r) => setTimeout(r, wait * 1000));
  }
}

const json = (key, body, extra = {}) => ({
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

function check(item, name, held, detail) {
  results.push({ item, name, held, detail });
  console.log(`${held ? 'held  ' : 'FAILED'} #${item} ${name}${detail ? ` — ${detail}` : ''}`);
}

/** A browser's dashboard session: cookies kept, same-origin, CSRF header on mutations. */
class Browser {
  cookies = new Map();
  headers(mutation) {
    const h = { 'sec-fetch-site': 'same-origin' };
    if (this.cookies.size) h.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const csrf = [...this.cookies].find(([k]) => k.endsWith('merma_csrf'))?.[1];
    if (mutation && csrf) h['x-csrf-token'] = csrf;
    return h;
  }
  keep(res) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  }
  async query(path, input) {
    const res = await call(
      `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`,
      { headers: this.headers(false) },
      { waitOn429: false },
    );
    this.keep(res);
    return res;
  }
  async mutate(path, input, raw) {
    const res = await call(
      `/trpc/${path}`,
      { method: 'POST', headers: { ...this.headers(true), 'content-type': 'application/json' }, body: raw ?? JSON.stringify(input) },
      { waitOn429: false },
    );
    this.keep(res);
    return res;
  }
}

const count = (statuses, status) => statuses.filter((s) => s === status).length;
const tally = (statuses) => {
  const counts = new Map();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n}×${s}`).join(' ');
};

async function main() {
  const health = await fetch(`${BASE}/healthz`).catch(() => null);
  if (!health?.ok) {
    console.error(`No Merma server answers at ${BASE} (set MERMA_URL)`);
    process.exit(2);
  }
  const demo = admin('quickstart');
  const key = demo.key.key;
  const establishmentId = demo.establishment.id;
  const reader = admin('key', 'create', '--establishment', establishmentId, '--mode', 'test', '--permissions', 'catalog:read').key;
  const webhookKey = admin(
    'key',
    'create',
    '--establishment',
    establishmentId,
    '--mode',
    'test',
    '--permissions',
    'webhooks:read,webhooks:write',
  ).key;
  const browser = new Browser();
  const link = new URL(demo.dashboard.sign_in_link).searchParams.get('token');
  const signedIn = await browser.mutate('accounts.signInWithLink', { token: link });
  if (signedIn.status === 429) {
    console.error(
      'This address used up its hourly allowance of link attempts (check #1 of an earlier run does that): run the probe again in an hour, or from another address.',
    );
    process.exit(2);
  }
  if (signedIn.status !== 200) throw new Error(`could not sign in with the quickstart link: ${signedIn.status} ${await signedIn.text()}`);

  // #1 The lockout counts attempts before evaluating them.
  {
    const email = `probe-${randomUUID()}@example.com`;
    const statuses = (
      await Promise.all(
        Array.from({ length: 60 }, (_, i) => new Browser().mutate('accounts.signIn', { email, password: `wrong guess number ${i}` })),
      )
    ).map((r) => r.status);
    const evaluated = count(statuses, 401) + count(statuses, 200);
    check(
      1,
      '60 parallel wrong passwords for one account evaluate at most 10',
      evaluated <= 10 && count(statuses, 429) >= 50,
      tally(statuses),
    );
    const tokens = (
      await Promise.all(
        Array.from({ length: 60 }, () =>
          new Browser().mutate('accounts.resetPassword', {
            token: `${randomUUID().replaceAll('-', '')}probeprobe1`,
            password: 'a perfectly good passphrase',
          }),
        ),
      )
    ).map((r) => r.status);
    check(
      1,
      '60 parallel bad reset tokens are looked up at most 30 times an hour',
      count(tokens, 404) <= 30 && count(tokens, 404) + count(tokens, 429) === 60,
      tally(tokens),
    );
  }

  // #2 Every HTML page refuses to be framed.
  for (const path of [
    '/dashboard',
    '/dashboard/',
    '/dashboard/index.html',
    '/dashboard/keys',
    '/dashboard/no-such-page',
    '/docs',
    '/docs/',
  ]) {
    const res = await call(path, { redirect: 'follow' });
    const type = res.headers.get('content-type') ?? '';
    const csp = res.headers.get('content-security-policy') ?? '';
    const held = !type.includes('text/html') || (/frame-ancestors 'none'/.test(csp) && res.headers.get('x-frame-options') === 'DENY');
    check(
      2,
      `${path} cannot be framed`,
      held,
      `${res.status} ${type.split(';')[0]}; frame-ancestors ${/frame-ancestors 'none'/.test(csp) ? "'none'" : 'missing'}; X-Frame-Options ${res.headers.get('x-frame-options') ?? 'missing'}`,
    );
  }

  // #3 Hostile text comes back as one CSV row per record, with no cell starting a formula.
  {
    const hostile = [
      'a\n=HYPERLINK("http://evil.example","x")',
      '=1+2',
      '+SUM(A1)',
      '-2+3',
      '@cmd',
      '\t=1',
      '\r=2',
      '＝1+1',
      'semi;colon, comma "quote"',
    ];
    // The demo organisation may be one an earlier quickstart made (it is reused): count the rows
    // the export holds before, and expect exactly one more per hostile record.
    const exportRows = async (dialect) => {
      const res = await call(`/export/records.csv?establishment_id=${establishmentId}&mode=test&dialect=${dialect}`, {
        headers: browser.headers(false),
      });
      const text = (await res.text()).replace(/^\uFEFF/, '');
      return { status: res.status, rows: parse(text, { delimiter: dialect === 'es' ? ';' : ',', relax_column_count: false }) };
    };
    const before = { es: (await exportRows('es')).rows.length, plain: (await exportRows('plain')).rows.length };
    for (const notes of hostile) {
      const res = await call(
        '/api/v1/records',
        json(key, {
          food_category: 'bakery',
          weight_kg: 1.5,
          destino_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477b',
          notes,
          product_name: notes,
        }),
      );
      if (res.status !== 201) throw new Error(`could not store a record: ${res.status} ${await res.text()}`);
    }
    for (const dialect of ['es', 'plain']) {
      const { status, rows } = await exportRows(dialect);
      const formula = rows.flat().filter((cell) => /^[=+\-@\t\r＝＋－＠]/.test(cell) && !/^-?\d+([.,]\d+)?$/.test(cell));
      const added = rows.length - before[dialect];
      check(
        3,
        `records CSV (${dialect}): one row per record, no formula cell`,
        status === 200 && added === hostile.length && formula.length === 0,
        `${status}, ${added} new rows for ${hostile.length} records, ${formula.length} formula cells`,
      );
    }
  }

  // #4 An Idempotency-Key replay is authorised first and belongs to the key that made it.
  {
    const idem = `probe-${randomUUID()}`;
    // A public address literal: the check must not depend on this machine's DNS.
    const body = { url: 'https://93.184.216.34/merma/hooks', events: ['record.created'] };
    const first = await call('/api/v1/webhooks', json(webhookKey, body, { 'idempotency-key': idem }));
    const replay = await call('/api/v1/webhooks', json(reader, body, { 'idempotency-key': idem }));
    const text = await replay.text();
    check(
      4,
      'a catalog:read key replaying another key’s POST /webhooks gets 403 and no secret',
      first.status === 201 && replay.status === 403 && !text.includes('whsec_'),
      `first ${first.status}, replay ${replay.status}${text.includes('whsec_') ? ' WITH the secret' : ''}`,
    );
  }

  // #10 Crafted cursors are refused as invalid input.
  {
    const b64 = (text) => Buffer.from(text).toString('base64url');
    const id = randomUUID();
    const crafted = [
      '!!!',
      'A'.repeat(5000),
      b64(`2026-02-30T10:00:00.000Z|${id}`), // a day February does not have
      b64(`+275760-09-13T00:00:00.000Z|${id}`), // a year PostgreSQL cannot store
      b64(`1700000000000|${id}`), // a number for the timestamp
      b64('2026-01-01T00:00:00.000Z|------------------------------------'), // dashes for the id
      b64("2026-01-01T00:00:00.000Z|' OR 1=1 --"),
    ];
    const scope = { establishment_id: establishmentId, livemode: false };
    for (const [path, extra] of [
      ['audit.list', {}],
      ['records.list', scope],
      ['plan.history', scope],
    ]) {
      const statuses = [];
      for (const cursor of crafted) statuses.push((await browser.query(path, { ...extra, cursor })).status);
      check(
        10,
        `${path}: crafted cursors are 400`,
        statuses.every((s) => s === 400),
        statuses.join(' '),
      );
    }
  }

  // #11 One depth limit for every route.
  {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const deepObject = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const signIn = await new Browser().mutate('accounts.signIn', null, deepObject);
    const record = await call('/api/v1/records', json(key, deep));
    const alive = await fetch(`${BASE}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    check(
      11,
      '20,000-deep JSON to /trpc/accounts.signIn and /api/v1/records is 400, server alive',
      signIn.status === 400 && record.status === 400 && alive,
      `trpc ${signIn.status}, api ${record.status}, healthz ${alive ? 'ok' : 'down'}`,
    );
  }

  // #15 IPv6 forms of internal IPv4 addresses are refused as webhook targets.
  for (const host of [
    '[64:ff9b::7f00:1]',
    '[64:ff9b::a9fe:a9fe]',
    '[2002:7f00:1::]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    '[::127.0.0.1]',
    '[::ffff:169.254.169.254]',
  ]) {
    const res = await call('/api/v1/webhooks', json(webhookKey, { url: `https://${host}/hook`, events: ['record.created'] }));
    check(15, `webhook URL https://${host}/hook is refused`, res.status === 400, String(res.status));
  }

  // #17 A paired station device writes only as a station, once per key, and stops when revoked:
  // its token is no API key; a write without an Idempotency-Key, or over the station's 500 kg, is
  // refused; a replay of its key with another body is 409; revoked, it is 401. (Paired before #16
  // spends this address's pairing allowance.)
  {
    const scope = { establishment_id: establishmentId, livemode: false };
    const started = await (await browser.mutate('stations.startPairing', { ...scope, name: 'probe' })).json();
    const code = started.result?.data?.code;
    const paired = await fetch(`${BASE}/station/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const token = (await paired.json()).data?.token;
    check(
      17,
      'a pairing code shown on the dashboard pairs a device',
      paired.status === 200 && /^stn_test_/.test(token ?? ''),
      String(paired.status),
    );
    const destinations = (await (await call('/api/v1/destinos', { headers: { authorization: `Bearer ${key}` } })).json()).data;
    const record = { food_category: 'bakery', weight_kg: 1.5, destino_id: destinations[0].id };
    const write = (body, idempotencyKey, auth = token) =>
      fetch(`${BASE}/station/records`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${auth}`,
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
      });
    const asApiKey = await call('/api/v1/records', json(token, record), { waitOn429: false });
    check(17, 'a station token is not an API key (401 on /api/v1)', asApiKey.status === 401, String(asApiKey.status));
    const keyAsToken = await write(record, randomUUID(), key);
    check(17, 'an API key is not a station token (401 on /station)', keyAsToken.status === 401, String(keyAsToken.status));
    const unkeyed = await write(record);
    check(17, 'a station write without an Idempotency-Key is 400', unkeyed.status === 400, String(unkeyed.status));
    const heavy = await write({ ...record, weight_kg: 500.5 }, randomUUID());
    check(17, 'a station record over 500 kg is 400', heavy.status === 400, String(heavy.status));
    const once = randomUUID();
    const first = await write(record, once);
    const again = await write(record, once);
    const other = await write({ ...record, weight_kg: 2 }, once);
    const firstId = first.status === 201 ? (await first.json()).data.id : null;
    const againId = again.status === 201 ? (await again.json()).data.id : null;
    check(
      17,
      "a station's key stores once, and is 409 with another body",
      first.status === 201 && againId === firstId && other.status === 409,
      `${first.status} ${again.status} ${other.status}`,
    );
    await browser.mutate('stations.revoke', { ...scope, id: started.result?.data?.device?.id });
    const revoked = await write(record, randomUUID());
    check(17, 'a revoked device cannot write (401)', revoked.status === 401, String(revoked.status));
  }

  // #16 Station pairing codes cannot be guessed at speed: every attempt from an address counts
  // before its code is checked (30 a minute); a forged device token is refused.
  {
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const guess = () => Array.from({ length: 8 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
    const statuses = (
      await Promise.all(
        Array.from({ length: 60 }, () =>
          fetch(`${BASE}/station/pair`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ code: guess() }),
          }),
        ),
      )
    ).map((r) => r.status);
    const refused = statuses.filter((s) => s === 401).length;
    const limited = statuses.filter((s) => s === 429).length;
    check(
      16,
      '60 parallel station pairing guesses from one address: at most 30 checked, the rest 429',
      refused <= 30 && refused + limited === 60,
      `${refused}×401, ${limited}×429`,
    );
    const forged = await fetch(`${BASE}/station/me`, { headers: { authorization: `Bearer stn_test_${'A'.repeat(32)}` } });
    check(16, 'a forged station device token is 401', forged.status === 401, String(forged.status));
  }

  // #18 A social entity's signing link: a credential of its own, for one donation, used once, and
  // not guessed at speed (every refused token counts against the address: 30 a minute).
  {
    const live = admin('key', 'create', '--establishment', establishmentId, '--mode', 'live').key;
    const digits = Array.from({ length: 7 }, () => Math.floor(Math.random() * 10));
    const sum = digits.reduce((acc, d, i) => acc + (i % 2 === 1 ? d : Math.floor((d * 2) / 10) + ((d * 2) % 10)), 0);
    const nif = `G${digits.join('')}${(10 - (sum % 10)) % 10}`;
    const entity = await (
      await call(
        '/api/v1/social-entities',
        json(live, {
          name: 'Probe food bank',
          nif,
          address: 'Calle 1',
          legal_form: 'banco_de_alimentos',
          ley_49_2002: { art2_entity: true, regime_opted_in: true },
          capacity: { cold_chain: true, vehicle: true },
        }),
      )
    ).json();
    const today = new Date().toISOString().slice(0, 10);
    const agreement = await (
      await call(
        '/api/v1/donation-agreements',
        json(live, {
          entity_id: entity.data.id,
          establishment_ids: [establishmentId],
          valid_from: '2020-01-01',
          valid_until: `${Number(today.slice(0, 4)) + 2}-12-31`,
          renewal: 'none',
          accepted_food_categories: ['bakery'],
          conditions: { chilled: true, frozen: true, cooked: true, near_best_before: true },
          collection: { schedule: 'Daily', weekdays: ['monday'], transport: 'entity' },
          storage_conditions: 'Dry',
          safety_responsibility_clause: 'Each its own',
          refusal_procedure: 'In writing',
        }),
      )
    ).json();
    await call(`/api/v1/donation-agreements/${agreement.data.id}/document`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${live}`, 'content-type': 'application/pdf' },
      body: Buffer.from('%PDF-1.7\nprobe\n%%EOF\n'),
    });
    const offer = async () =>
      (
        await (
          await call(
            '/api/v1/donations',
            json(key, {
              agreement_id: agreement.data.id,
              lines: [{ description: 'Bread', food_category: 'bakery', quantity: 1, unit: 'kg' }],
            }),
          )
        ).json()
      ).data;
    const [donation, other] = [await offer(), await offer()];
    const made = await (await call(`/api/v1/donations/${donation.id}/link`, json(key, {}))).json();
    const token = made.data.url.slice(made.data.url.indexOf('#') + 1);
    const door = (id, bearer, init = {}) =>
      fetch(`${BASE}/donation-link/donations/${id}${init.path ?? ''}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${bearer}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
        ...(init.body ? { body: JSON.stringify(init.body) } : {}),
      });
    const asKey = await call('/api/v1/records', { headers: { authorization: `Bearer ${token}` } });
    check(18, 'a signing link is not an API key (401 on /api/v1)', asKey.status === 401, String(asKey.status));
    const keyAsLink = await door(donation.id, key);
    check(18, 'an API key is not a signing link (401)', keyAsLink.status === 401, String(keyAsLink.status));
    const elsewhere = await door(other.id, token);
    check(18, "a link opens only its own donation (404 on another's)", elsewhere.status === 404, String(elsewhere.status));
    const signature = {
      lines: [{ line_id: donation.lines[0].id, decision: 'accepted' }],
      signer: { name: 'Probe Volunteer', id_document: 'X1234567L', signature: { kind: 'typed', text: 'Probe Volunteer' } },
    };
    const first = await door(donation.id, token, { method: 'POST', path: '/signature', body: signature });
    const second = await door(donation.id, token, { method: 'POST', path: '/signature', body: signature });
    check(18, 'a link signs once (200, then 410)', first.status === 200 && second.status === 410, `${first.status}, ${second.status}`);
    // The certificate of the year's gifts, signed through a link of the same kind: each token opens its own door only.
    await call(`/api/v1/donations/${donation.id}/collect`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    const certificate = await (
      await call(`/api/v1/donations/tax-pack/certificates/${entity.data.id}/link`, json(key, { year: new Date().getUTCFullYear() }))
    ).json();
    const certificateUrl = certificate.data?.url ?? '';
    const certificateId = certificateUrl.slice(certificateUrl.indexOf('/certificate/') + 13, certificateUrl.indexOf('#'));
    const certificateToken = certificateUrl.slice(certificateUrl.indexOf('#') + 1);
    const certificateDoor = (id, bearer) =>
      fetch(`${BASE}/donation-link/certificates/${id}`, { headers: { authorization: `Bearer ${bearer}` } });
    const own = await certificateDoor(certificateId, certificateToken);
    const donationTokenThere = await certificateDoor(certificateId, token);
    const certificateTokenHere = await door(donation.id, certificateToken);
    const otherCertificate = await certificateDoor(randomUUID(), certificateToken);
    check(
      18,
      "a certificate's link opens its certificate only: 200 there, 401 for a donation's token, 401 at a donation's door, 404 for another id",
      own.status === 200 && donationTokenThere.status === 401 && certificateTokenHere.status === 401 && otherCertificate.status === 404,
      `${own.status}, ${donationTokenThere.status}, ${certificateTokenHere.status}, ${otherCertificate.status}`,
    );
    const forged = (
      await Promise.all(
        Array.from({ length: 60 }, () => door(donation.id, `dln_${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}`)),
      )
    ).map((r) => r.status);
    check(
      18,
      '60 parallel forged signing-link tokens from one address: at most 30 looked up, the rest 429',
      count(forged, 401) <= 30 && count(forged, 401) + count(forged, 429) === 60,
      tally(forged),
    );
  }

  // #19 A photo of the waste: only an image is stored, served as an image that runs nothing, and its
  // short-lived link opens that photo only, until its expiry, unaltered.
  {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
    const upload = (bearer, body, type) =>
      call('/api/v1/photos', { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': type }, body });
    const html = await upload(key, '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'image/png');
    const svg = await upload(key, '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'image/svg+xml');
    check(
      19,
      'a script passed off as a photo is refused (400 as image/png, 415 as SVG)',
      html.status === 400 && svg.status === 415,
      `${html.status}, ${svg.status}`,
    );
    const byReader = await upload(reader, png, 'image/png');
    check(19, 'a catalog:read key uploads no photo (403)', byReader.status === 403, String(byReader.status));
    const photo = (await (await upload(key, png, 'image/png')).json()).data;
    const other = (await (await upload(key, Buffer.concat([png, Buffer.from('x')]), 'image/png')).json()).data;
    const readerGet = await call(`/api/v1/photos/${photo.id}`, { headers: { authorization: `Bearer ${reader}` } });
    check(19, 'a catalog:read key reads no photo (403)', readerGet.status === 403, String(readerGet.status));
    const shown = (await (await call(`/api/v1/photos/${photo.id}`, { headers: { authorization: `Bearer ${key}` } })).json()).data;
    const link = new URL(shown.download_url);
    // Merma's own link (files under DATA_DIR) is read at the probed address; a bucket's presigned one where it points.
    const ours = link.pathname.startsWith('/files/photos/');
    const at = (path) => fetch(ours ? `${BASE}${path}` : `${link.origin}${path}`);
    const refused = (res) => res.status === 404 || (!ours && res.status === 403);
    const own = await at(`${link.pathname}${link.search}`);
    check(
      19,
      'a photo link serves an image that runs nothing (image/png, nosniff, a policy of default-src none)',
      own.status === 200 &&
        own.headers.get('content-type') === 'image/png' &&
        own.headers.get('x-content-type-options') === 'nosniff' &&
        (own.headers.get('content-security-policy') ?? '').includes("default-src 'none'"),
      `${own.status} ${own.headers.get('content-type')}`,
    );
    const later = new URLSearchParams(link.search);
    later.set('expires', String(Number(later.get('expires')) + 86_400));
    const extended = await at(`${link.pathname}?${later}`);
    const elsewhere = await at(`${link.pathname.replace(shown.id, other.id).replace(shown.sha256, other.sha256)}${link.search}`);
    const bare = await at(link.pathname);
    check(
      19,
      'a photo link opens its photo only: refused with a later expiry, for another photo, or without its signature',
      refused(extended) && refused(elsewhere) && refused(bare),
      `${extended.status}, ${elsewhere.status}, ${bare.status}`,
    );
  }

  const held = results.filter((r) => r.held).length;
  const failed = results.length - held;
  console.log(`\n${held} held, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
