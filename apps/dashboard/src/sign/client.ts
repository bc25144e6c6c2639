import type { CertificateToSign, DonationNote, ErrorDetail, SignCertificateInput, SignDonationInput } from '@merma/schema';

/**
 * The signing page's calls to its door (`/donation-link/…`, apps/server/src/http/surfaces/donation-link.ts):
 * a donation's (`/donation-link/donations/{id}`) and a certificate's (`/donation-link/certificates/{link_id}`),
 * over one transport: plain fetch, the link's token as `Authorization: Bearer`, the API's envelope
 * (`{data}`) and error shape (`{error, status, code, details?}`). Only types come from @merma/schema:
 * the page ships no zod.
 */

const DONATIONS = '/donation-link/donations';
const CERTIFICATES = '/donation-link/certificates';

/** What went wrong, as the page tells it apart. */
export type LinkProblem =
  /** No answer (offline, the connection dropped). */
  | 'offline'
  /** 401 (a wrong or partial token) or 404 (a token of another document): the link is not valid. */
  | 'invalid'
  | 'expired'
  | 'replaced'
  /** A second signature through a link already used. */
  | 'used'
  /** A 410 without a known reason. */
  | 'gone'
  /** 409: the donation was answered another way (the kitchen recorded it), so it cannot be signed. A certificate has no such answer. */
  | 'answered'
  /** 400: the answer or the signature was refused; `details` says which fields. */
  | 'invalid_input'
  | 'rate_limited'
  /** A 5xx or an answer the page cannot read. */
  | 'server';

/** An answer other than 2xx, or no answer at all (`status` 0). */
export class LinkError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** Seconds the server asked to wait (Retry-After), when it did. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'LinkError';
  }

  get problem(): LinkProblem {
    if (this.status === 0) return 'offline';
    if (this.status === 401 || this.status === 404) return 'invalid';
    if (this.status === 410) {
      // The detail names the link's field that ends it (modules/donations/links.ts, linkRefusal).
      const paths = new Set(this.details.map((d) => d.path));
      if (paths.has('link.replaced_at')) return 'replaced';
      if (paths.has('link.expires_at')) return 'expired';
      if (paths.has('link.used_at')) return 'used';
      return 'gone';
    }
    if (this.status === 400) return 'invalid_input';
    if (this.status === 409) return 'answered';
    if (this.status === 429) return 'rate_limited';
    return 'server';
  }

  /** The link will never work again: its token is worth nothing. */
  get linkDead(): boolean {
    const p = this.problem;
    return p === 'invalid' || p === 'expired' || p === 'replaced' || p === 'gone';
  }
}

type ErrorBodyShape = { code?: unknown; error?: unknown; details?: unknown };

function detailsOf(raw: unknown): ErrorDetail[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (d): d is ErrorDetail =>
      typeof d === 'object' && d !== null && typeof (d as ErrorDetail).path === 'string' && typeof (d as ErrorDetail).message === 'string',
  );
}

/** Reads a failed answer as a LinkError. */
export async function errorOf(res: Response): Promise<LinkError> {
  const body = (await res.json().catch(() => null)) as ErrorBodyShape | null;
  const retryAfter = Number(res.headers.get('retry-after')) || undefined;
  return new LinkError(
    res.status,
    typeof body?.code === 'string' ? body.code : 'unknown',
    typeof body?.error === 'string' ? body.error : `HTTP ${res.status}`,
    detailsOf(body?.details),
    retryAfter,
  );
}

/** The calls' shared way: the token as a header, never cookies nor a cache, the envelope read and each failure a LinkError. */
function linkTransport(base: string, token: string, fetchImpl: typeof fetch) {
  const send = async (suffix: string, init: { method?: 'GET' | 'POST'; body?: string; accept: string }): Promise<Response> => {
    const headers: Record<string, string> = { accept: init.accept, authorization: `Bearer ${token}` };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetchImpl(`${base}${suffix}`, {
        method: init.method ?? 'GET',
        body: init.body ?? null,
        headers,
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      throw new LinkError(0, 'offline', 'No connection');
    }
    if (!res.ok) throw await errorOf(res);
    return res;
  };
  return {
    /** The `data` of a JSON answer; `body`, when given, is POSTed as JSON. */
    json: async <T>(suffix: string, body?: unknown): Promise<T> => {
      const res = await send(
        suffix,
        body === undefined ? { accept: 'application/json' } : { method: 'POST', body: JSON.stringify(body), accept: 'application/json' },
      );
      const read = (await res.json().catch(() => null)) as { data?: T } | null;
      if (!read?.data) throw new LinkError(res.status, 'unreadable', 'The answer could not be read');
      return read.data;
    },
    /** A file, read whole. */
    file: async (suffix: string, accept: string): Promise<Blob> => {
      const res = await send(suffix, { accept });
      try {
        return await res.blob();
      } catch {
        throw new LinkError(0, 'offline', 'The download was interrupted');
      }
    },
  };
}

const defaultFetch: typeof fetch = (...a) => fetch(...a);

export type SignClient = ReturnType<typeof createSignClient>;

/** The calls of a donation's link: the donation `donationId`, the token `token`. */
export function createSignClient(donationId: string, token: string, fetchImpl: typeof fetch = defaultFetch) {
  const link = linkTransport(`${DONATIONS}/${encodeURIComponent(donationId)}`, token, fetchImpl);
  return {
    note: () => link.json<DonationNote>(''),
    sign: (body: SignDonationInput) => link.json<DonationNote>('/signature', body),
    /** The signed note as a file: `pdf` or the spreadsheet's `csv`. */
    download: (kind: 'pdf' | 'csv'): Promise<Blob> => link.file(`/note.${kind}`, kind === 'pdf' ? 'application/pdf' : 'text/csv'),
  };
}

export type CertificateClient = ReturnType<typeof createCertificateClient>;

/** The calls of a certificate's link (Ley 49/2002 art. 24): the link `linkId`, the token `token`. */
export function createCertificateClient(linkId: string, token: string, fetchImpl: typeof fetch = defaultFetch) {
  const link = linkTransport(`${CERTIFICATES}/${encodeURIComponent(linkId)}`, token, fetchImpl);
  return {
    certificate: () => link.json<CertificateToSign>(''),
    sign: (body: SignCertificateInput) => link.json<CertificateToSign>('/signature', body),
    /** The signed certificate's PDF (a 404 until it is signed). */
    download: (): Promise<Blob> => link.file('/certificate.pdf', 'application/pdf'),
  };
}

/** Saves `blob` as `filename` through a link to it, the way a browser downloads a file. */
export function saveBlob(blob: Blob, filename: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked once the browser has taken the file.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
