import { SignCertificateInput, SignDonationInput, Uuid } from '@merma/schema';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashToken } from '../../auth/tokens.js';
import type { Clock } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { AppError, invalidInput } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { CatalogCache } from '../../modules/catalog/service.js';
import {
  certificateKeyOfLink,
  certificateToSign,
  signCertificate,
  signedCertificateOfLink,
} from '../../modules/donations/certificate-links.js';
import { DONATION_LINK_PREFIX, donationNote, linkRefusal, signDonation, signedNotePdf } from '../../modules/donations/links.js';
import { donationNoteCsv } from '../../modules/donations/note-csv.js';
import {
  type Caller,
  type CertificateLinkRow,
  type DonationLinkRow,
  findCertificateLinkCaller,
  findDonationLinkCaller,
} from '../../modules/tenancy/callers.js';
import { ok } from '../../trpc/trpc.js';
import { bearerCredential } from '../auth.js';
import { sendSignedNote } from '../donation-note.js';
import type { RateLimiter } from '../rate-limit.js';
import { sendSignedCertificate } from '../signed-certificate.js';
import { noStore, storableBodies, wakeAfterWrites } from './hooks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signing link of a donation-link route's token (surfaces/donation-link.ts); unset elsewhere. */
    donationLink: { link: DonationLinkRow; caller: Caller };
    /** The certificate's signing link of a certificate route's token; unset elsewhere. */
    certificateLink: { link: CertificateLinkRow; caller: Caller };
  }
}

export type DonationLinkSurfaceDeps = {
  db: Db;
  sql: Sql;
  clock: Clock;
  rateLimiter: RateLimiter;
  catalog: CatalogCache;
  afterWrite?: () => void;
};

const PREFIX = '/donation-link/donations/:id';
const CERTIFICATE_PREFIX = '/donation-link/certificates/:id';

/**
 * The door of the fifth kind of caller: a social entity's volunteer or representative, without an
 * account, holding a one-time link the kitchen made for one donation (modules/donations/links.ts)
 * or for one certificate of the year's donations (modules/donations/certificate-links.ts). Its
 * page (`/dashboard/sign/{donation_id}` or `/dashboard/sign/certificate/{link_id}`, in the
 * dashboard's app) reads the token from the URL's fragment and sends it as
 * `Authorization: Bearer dln_…`; the routes:
 *
 * - `GET /donation-link/donations/{id}`: the donation's lines (no values) and, once signed, who signed;
 * - `POST /donation-link/donations/{id}/signature`: the answer and the signature, once (410 after);
 * - `GET /donation-link/donations/{id}/note.pdf` and `note.csv`: the signed note, for the entity's register;
 * - `GET /donation-link/certificates/{link_id}`: the pre-filled certificate and, once signed, who signed;
 * - `POST /donation-link/certificates/{link_id}/signature`: the signature, once (410 after);
 * - `GET /donation-link/certificates/{link_id}/certificate.pdf`: the certificate signed through it.
 *
 * Its own hooks: every request counts against its address (`DONATION_LINK_LIMITS.address`), and an
 * unknown token also against the refused-requests limit the integrations' URLs use, so guessing is
 * slow; a token names one donation or certificate, and any other id in the path is a 404 (as an
 * unknown one); an expired or replaced link is a 410 for every use, a used one for the signature.
 * Answers are never cached, in the API's envelope and error shapes; a signature wakes the webhook
 * dispatcher. No cookie is read: nothing here for a cross-site request to borrow.
 */
export async function donationLinkSurface(app: FastifyInstance, deps: DonationLinkSurfaceDeps): Promise<void> {
  noStore(app);
  storableBodies(app);
  wakeAfterWrites(app, deps.afterWrite);
  await app.register(donationRoutes, deps);
  await app.register(certificateRoutes, deps);
}

/** The token of a request, resolved by `find`, or a 401 (counted as a refused request); a 404 when the path names another subject. */
async function takeLink<T extends { link: { id: string } }>(
  request: FastifyRequest,
  deps: DonationLinkSurfaceDeps,
  find: (tokenHash: string) => Promise<T | undefined>,
  subjectOf: (found: T) => string,
): Promise<T> {
  await deps.rateLimiter.consumeForLink('address', request.ip);
  const token = bearerCredential(request);
  const found = token?.startsWith(DONATION_LINK_PREFIX) ? await find(hashToken(token)) : undefined;
  if (!found) {
    await deps.rateLimiter.consumeIntegration('refused', `donation-link:${request.ip}`);
    throw new AppError('unauthorized', 'This link is not valid: open the whole link the kitchen sent, or ask it for a new one');
  }
  const id = Uuid.safeParse((request.params as { id?: unknown }).id);
  if (!id.success || id.data !== subjectOf(found)) throw new AppError('not_found', 'No such donation or certificate for this link');
  return found;
}

async function donationRoutes(app: FastifyInstance, deps: DonationLinkSurfaceDeps): Promise<void> {
  const { sql, clock } = deps;
  app.decorateRequest('donationLink', null as unknown as FastifyRequest['donationLink']);

  app.addHook('onRequest', async (request) => {
    const found = await takeLink(
      request,
      deps,
      (hash) => findDonationLinkCaller(sql, hash),
      (f) => f.link.donation_id,
    );
    (request.log as Logger).setBindings({ establishment_id: found.caller.tenant.establishmentId, donation_link_id: found.link.id });
    request.donationLink = found;
  });

  const usable = (request: FastifyRequest, use: 'read' | 'sign') => {
    const refusal = linkRefusal(request.donationLink.link, clock(), use);
    if (refusal) throw refusal;
    return request.donationLink;
  };

  app.get(PREFIX, async (request) => {
    const { link, caller } = usable(request, 'read');
    return ok(await donationNote(sql, caller.tenant, link));
  });

  app.post(`${PREFIX}/signature`, async (request) => {
    const { link, caller } = usable(request, 'sign');
    await deps.rateLimiter.consumeForLink('sign', link.id);
    const parsed = SignDonationInput.safeParse(request.body);
    if (!parsed.success) throw invalidInput(parsed.error);
    const ua = request.headers['user-agent'];
    return ok(
      await signDonation({ db: deps.db, clock, catalog: deps.catalog }, caller.tenant, link.id, parsed.data, {
        ip: request.ip,
        userAgent: typeof ua === 'string' ? ua : null,
      }),
    );
  });

  app.get(`${PREFIX}/note.pdf`, async (request, reply) => {
    const { link } = usable(request, 'read');
    return sendSignedNote(reply, link.donation_id, await signedNotePdf(sql, link.donation_id));
  });

  app.get(`${PREFIX}/note.csv`, async (request, reply) => {
    const { link, caller } = usable(request, 'read');
    const note = await donationNote(sql, caller.tenant, link);
    if (!note.signed) throw new AppError('not_found', 'This donation has no signed note yet');
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="albaran-donacion-${link.donation_id}.csv"`)
      .send(await donationNoteCsv(note));
  });
}

async function certificateRoutes(app: FastifyInstance, deps: DonationLinkSurfaceDeps): Promise<void> {
  const { sql, clock } = deps;
  app.decorateRequest('certificateLink', null as unknown as FastifyRequest['certificateLink']);

  app.addHook('onRequest', async (request) => {
    const found = await takeLink(
      request,
      deps,
      (hash) => findCertificateLinkCaller(sql, hash),
      (f) => f.link.id,
    );
    (request.log as Logger).setBindings({ establishment_id: found.caller.tenant.establishmentId, certificate_link_id: found.link.id });
    request.certificateLink = found;
  });

  const usable = (request: FastifyRequest, use: 'read' | 'sign') => {
    const refusal = linkRefusal(request.certificateLink.link, clock(), use, 'certificate');
    if (refusal) throw refusal;
    return request.certificateLink;
  };

  app.get(CERTIFICATE_PREFIX, async (request) => {
    const { link } = usable(request, 'read');
    return ok(await certificateToSign(sql, link, clock()));
  });

  app.post(`${CERTIFICATE_PREFIX}/signature`, async (request) => {
    const { link, caller } = usable(request, 'sign');
    await deps.rateLimiter.consumeForLink('sign', link.id);
    const parsed = SignCertificateInput.safeParse(request.body);
    if (!parsed.success) throw invalidInput(parsed.error);
    const ua = request.headers['user-agent'];
    return ok(
      await signCertificate({ db: deps.db, clock }, caller.tenant, link.id, parsed.data, {
        ip: request.ip,
        userAgent: typeof ua === 'string' ? ua : null,
      }),
    );
  });

  app.get(`${CERTIFICATE_PREFIX}/certificate.pdf`, async (request, reply) => {
    const { link } = usable(request, 'read');
    return sendSignedCertificate(reply, certificateKeyOfLink(link), await signedCertificateOfLink(sql, link));
  });
}
