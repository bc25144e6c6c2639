import { describe, expect, it } from 'vitest';
import { createCertificateClient, createSignClient, LinkError } from '../src/sign/client.ts';
import { formatLocale, pickLanguage } from '../src/sign/i18n.ts';
import { forgetToken, type LinkPlace, linkTargetFrom, takeLink } from '../src/sign/token.ts';

/**
 * The signing page's link (src/sign/token.ts): a donation's or a certificate's, the token read from
 * the fragment and taken out of the address bar, kept for this tab only; its calls (client.ts): the
 * token as a header and never in a URL, and each refusal told apart; and its language (i18n.ts).
 */

const ID = '0b6f3d0e-8f7a-4c1e-9a55-6d1f1c2b3a4d';
const DONATION = { kind: 'donation', id: ID } as const;
const CERTIFICATE = { kind: 'certificate', id: ID } as const;
const TOKEN = 'dln_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcd';

function place(url: string, kept: Record<string, string> = {}) {
  const parsed = new URL(url, 'https://merma.example');
  const storage = new Map(Object.entries(kept));
  const replaced: string[] = [];
  const p: LinkPlace = {
    location: { pathname: parsed.pathname, search: parsed.search, hash: parsed.hash },
    history: {
      state: null,
      replaceState: (_state: unknown, _unused: string, url?: string | URL | null) => {
        replaced.push(String(url));
      },
    },
    storage: {
      getItem: (k) => storage.get(k) ?? null,
      setItem: (k, v) => {
        storage.set(k, v);
      },
      removeItem: (k) => {
        storage.delete(k);
      },
    },
  };
  return { p, storage, replaced };
}

describe('takeLink', () => {
  it('takes the token from the fragment, removes the fragment from the address, and keeps the token for this tab', () => {
    const { p, storage, replaced } = place(`/dashboard/sign/${ID}?utm=qr#${TOKEN}`);
    expect(takeLink(p)).toEqual({ target: DONATION, token: TOKEN });
    expect(replaced).toEqual([`/dashboard/sign/${ID}?utm=qr`]);
    expect(storage.get(`merma.sign.${ID}`)).toBe(TOKEN);
  });

  it('after a reload (no fragment) uses the kept token, and leaves the address alone', () => {
    const { p, replaced } = place(`/dashboard/sign/${ID}`, { [`merma.sign.${ID}`]: TOKEN });
    expect(takeLink(p)).toEqual({ target: DONATION, token: TOKEN });
    expect(replaced).toEqual([]);
  });

  it('prefers a new link’s token to the kept one', () => {
    const { p, storage } = place(`/dashboard/sign/${ID}#dln_newer`, { [`merma.sign.${ID}`]: TOKEN });
    expect(takeLink(p).token).toBe('dln_newer');
    expect(storage.get(`merma.sign.${ID}`)).toBe('dln_newer');
  });

  it('removes a fragment that is not a token, and finds none', () => {
    for (const hash of ['#top', '#dln_', '#%E0%A4%A']) {
      const { p, replaced, storage } = place(`/dashboard/sign/${ID}${hash}`);
      expect(takeLink(p), hash).toEqual({ target: DONATION, token: null });
      expect(replaced, hash).toHaveLength(1);
      expect(storage.size, hash).toBe(0);
    }
  });

  it('finds no document in a path that does not end in an id', () => {
    expect(linkTargetFrom('/dashboard/sign/not-a-uuid')).toBeNull();
    expect(linkTargetFrom('/dashboard/sign/certificate/not-a-uuid')).toBeNull();
    expect(linkTargetFrom('/dashboard/sign/certificate')).toBeNull();
    expect(linkTargetFrom(`/dashboard/sign/${ID.toUpperCase()}/`)).toEqual(DONATION);
    expect(linkTargetFrom(`/dashboard/sign/certificate/${ID.toUpperCase()}/`)).toEqual(CERTIFICATE);
    const { p, replaced } = place(`/dashboard/sign/nope#${TOKEN}`);
    expect(takeLink(p)).toEqual({ target: null, token: null });
    expect(replaced).toEqual(['/dashboard/sign/nope']);
  });

  it('works with storage blocked, keeping the token in memory only', () => {
    const { p } = place(`/dashboard/sign/${ID}#${TOKEN}`);
    const blocked = () => {
      throw new Error('SecurityError');
    };
    p.storage = { getItem: blocked, setItem: blocked, removeItem: blocked };
    expect(takeLink(p)).toEqual({ target: DONATION, token: TOKEN });
    expect(() => forgetToken(p, DONATION)).not.toThrow();
  });

  it('forgets the kept token', () => {
    const { p, storage } = place(`/dashboard/sign/${ID}`, { [`merma.sign.${ID}`]: TOKEN, other: 'x' });
    forgetToken(p, DONATION);
    expect([...storage.keys()]).toEqual(['other']);
  });

  it('reads a certificate’s link the same way, keeping its token apart from a donation’s of the same id', () => {
    const { p, storage, replaced } = place(`/dashboard/sign/certificate/${ID}?from=mail#${TOKEN}`, {
      [`merma.sign.${ID}`]: 'dln_donation',
    });
    expect(takeLink(p)).toEqual({ target: CERTIFICATE, token: TOKEN });
    expect(replaced).toEqual([`/dashboard/sign/certificate/${ID}?from=mail`]);
    expect(storage.get(`merma.sign.certificate.${ID}`)).toBe(TOKEN);
    expect(storage.get(`merma.sign.${ID}`)).toBe('dln_donation');

    // After a reload, its own token; forgotten alone.
    const reloaded = place(`/dashboard/sign/certificate/${ID}`, Object.fromEntries(storage));
    expect(takeLink(reloaded.p)).toEqual({ target: CERTIFICATE, token: TOKEN });
    expect(reloaded.replaced).toEqual([]);
    forgetToken(reloaded.p, CERTIFICATE);
    expect([...reloaded.storage.keys()]).toEqual([`merma.sign.${ID}`]);
  });

  it('removes a certificate link’s fragment when it is not a token, or when the path holds no id', () => {
    const bad = place(`/dashboard/sign/certificate/${ID}#top`);
    expect(takeLink(bad.p)).toEqual({ target: CERTIFICATE, token: null });
    expect(bad.replaced).toHaveLength(1);
    const noId = place(`/dashboard/sign/certificate/nope#${TOKEN}`);
    expect(takeLink(noId.p)).toEqual({ target: null, token: null });
    expect(noId.replaced).toEqual(['/dashboard/sign/certificate/nope']);
    expect(noId.storage.size).toBe(0);
  });
});

type Sent = { url: string; init: RequestInit };

/** A fetch that records what it was asked and answers `status` with `body`. */
function answering(status: number, body: unknown, headers: Record<string, string> = {}) {
  const sent: Sent[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers });
  }) as unknown as typeof fetch;
  return { sent, fetchImpl };
}

const gone = (path: string) => ({ error: 'gone', status: 410, code: 'gone', details: [{ path, message: '…' }] });

describe('the signing page’s calls', () => {
  it('send the token as a bearer header, never in the URL, and read the envelope', async () => {
    const { sent, fetchImpl } = answering(200, { success: true, data: { donation_id: ID } });
    const client = createSignClient(ID, TOKEN, fetchImpl);
    expect(await client.note()).toEqual({ donation_id: ID });
    await client.sign({ lines: [], signer: { name: 'x', id_document: 'y', signature: { kind: 'typed', text: 'x' } } });
    expect(sent.map((s) => [s.init.method ?? 'GET', s.url])).toEqual([
      ['GET', `/donation-link/donations/${ID}`],
      ['POST', `/donation-link/donations/${ID}/signature`],
    ]);
    for (const { url, init } of sent) {
      expect(url).not.toContain(TOKEN);
      expect((init.headers as Record<string, string>).authorization).toBe(`Bearer ${TOKEN}`);
      expect(init.credentials).toBe('omit');
    }
    expect((sent[1]?.init.headers as Record<string, string> | undefined)?.['content-type']).toBe('application/json');
  });

  it('download the signed note as a file', async () => {
    const { sent, fetchImpl } = answering(200, '%PDF-1.7 …', { 'content-type': 'application/pdf' });
    const blob = await createSignClient(ID, TOKEN, fetchImpl).download('pdf');
    expect(await blob.text()).toBe('%PDF-1.7 …');
    expect(sent[0]?.url).toBe(`/donation-link/donations/${ID}/note.pdf`);
  });

  it('a certificate’s: read, signed and downloaded at its own routes, the token as a bearer header', async () => {
    const { sent, fetchImpl } = answering(200, { success: true, data: { year: 2026 } });
    const client = createCertificateClient(ID, TOKEN, fetchImpl);
    expect(await client.certificate()).toEqual({ year: 2026 });
    const body = {
      signer: { name: 'Ana', id_document: '12345678Z', role: 'Presidenta', signature: { kind: 'typed', text: 'Ana' } },
      place: 'Madrid',
    } as const;
    await client.sign(body);
    await client.download();
    expect(sent.map((s) => [s.init.method ?? 'GET', s.url, s.init.body ?? null])).toEqual([
      ['GET', `/donation-link/certificates/${ID}`, null],
      ['POST', `/donation-link/certificates/${ID}/signature`, JSON.stringify(body)],
      ['GET', `/donation-link/certificates/${ID}/certificate.pdf`, null],
    ]);
    for (const { url, init } of sent) {
      expect(url).not.toContain(TOKEN);
      expect((init.headers as Record<string, string>).authorization).toBe(`Bearer ${TOKEN}`);
      expect(init.credentials).toBe('omit');
      expect(init.cache).toBe('no-store');
    }
    expect((sent[2]?.init.headers as Record<string, string> | undefined)?.accept).toBe('application/pdf');
  });

  it.each([
    [410, gone('link.expires_at'), 'expired', true],
    [410, gone('link.replaced_at'), 'replaced', true],
    [410, gone('link.used_at'), 'used', false],
    [404, { code: 'not_found' }, 'invalid', true],
    [429, { code: 'rate_limited' }, 'rate_limited', false],
  ] as const)('a certificate’s %i answer (%j) is told as %s, as a donation’s is', async (status, body, problem, dead) => {
    const { fetchImpl } = answering(status, body);
    const error = await createCertificateClient(ID, TOKEN, fetchImpl)
      .certificate()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinkError);
    expect([(error as LinkError).problem, (error as LinkError).linkDead]).toEqual([problem, dead]);
  });

  it.each([
    [401, { code: 'unauthorized' }, 'invalid', true],
    [404, { code: 'not_found' }, 'invalid', true],
    [410, gone('link.expires_at'), 'expired', true],
    [410, gone('link.replaced_at'), 'replaced', true],
    [410, gone('link.used_at'), 'used', false],
    [410, { code: 'gone' }, 'gone', true],
    [409, { code: 'conflict' }, 'answered', false],
    [400, { code: 'validation_error', details: [{ path: 'signer.name', message: 'x' }] }, 'invalid_input', false],
    [429, { code: 'rate_limited' }, 'rate_limited', false],
    [503, { code: 'service_unavailable' }, 'server', false],
    [502, 'Bad gateway', 'server', false],
  ] as const)('tell a %i answer (%j) as %s', async (status, body, problem, dead) => {
    const { fetchImpl } = answering(status, body, { 'retry-after': '7' });
    const error = await createSignClient(ID, TOKEN, fetchImpl)
      .note()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinkError);
    expect((error as LinkError).problem).toBe(problem);
    expect((error as LinkError).linkDead).toBe(dead);
    expect((error as LinkError).retryAfter).toBe(7);
  });

  it('keep a 400’s details', async () => {
    const details = [{ path: 'lines.0.reason', message: 'required' }];
    const { fetchImpl } = answering(400, { code: 'validation_error', error: 'Invalid input', details });
    const error = (await createSignClient(ID, TOKEN, fetchImpl)
      .sign({ lines: [], signer: { name: 'x', id_document: 'y', signature: { kind: 'typed', text: 'x' } } })
      .catch((e: unknown) => e)) as LinkError;
    expect(error.details).toEqual(details);
  });

  it('tell no answer as offline', async () => {
    const fetchImpl = (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    const error = (await createSignClient(ID, TOKEN, fetchImpl)
      .note()
      .catch((e: unknown) => e)) as LinkError;
    expect([error.status, error.problem, error.linkDead]).toEqual([0, 'offline', false]);
  });
});

describe('the signing page’s language', () => {
  it('is the one chosen before, else the browser’s first that the page speaks, else Spanish', () => {
    expect(pickLanguage(null, ['en-GB', 'es'])).toBe('en');
    expect(pickLanguage(null, ['fr-FR', 'es-MX', 'en'])).toBe('es');
    expect(pickLanguage(null, ['de', 'fr'])).toBe('es');
    expect(pickLanguage(null, [])).toBe('es');
    expect(pickLanguage('en', ['es-ES'])).toBe('en');
    expect(pickLanguage('fr', ['en-US'])).toBe('en');
  });

  it('writes dates and numbers the browser’s regional way, else Spain’s', () => {
    expect(formatLocale('en', ['en-US', 'es'])).toBe('en-US');
    expect(formatLocale('en', ['es-ES'])).toBe('en-GB');
    expect(formatLocale('es', ['en-GB', 'es-mx'])).toBe('es-MX');
    expect(formatLocale('es', ['de'])).toBe('es-ES');
  });
});
