import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { type PagePromise, paginate } from '../core/pagination.js';
import type {
  CreateCertificateLinkInput,
  CreateDonationAgreementInput,
  CreateDonationInput,
  CreateDonationLinkInput,
  CreateSocialEntityInput,
  DecideDonationInput,
  Donation,
  DonationAgreement,
  DonationCertificateQuery,
  DonationLink,
  DonationSignedCertificate,
  DonationTaxPack,
  DonationTaxPackQuery,
  ListDonationAgreementsQuery,
  ListDonationsQuery,
  RerouteDonationLineInput,
  SocialEntity,
  UpdateDonationAgreementInput,
  UpdateSocialEntityInput,
} from '../generated/api-types.js';
import { download, segment } from './path.js';

/**
 * The organisation's social entities and food banks (Ley 1/2025 art. 6.4.b), shared by its
 * establishments and both modes: a live key changes them, a test key reads them.
 */
export class SocialEntities {
  constructor(private readonly core: HttpCore) {}

  /** By name; archived entities only with `include_archived: true`. */
  list(query: { include_archived?: boolean | undefined } = {}, options?: RequestOptions): APIPromise<SocialEntity[]> {
    return this.core.request({ method: 'GET', path: '/social-entities', query }, options);
  }

  get(id: string, options?: RequestOptions): APIPromise<SocialEntity> {
    return this.core.request({ method: 'GET', path: `/social-entities/${segment(id)}` }, options);
  }

  /** One per NIF in the organisation (a ConflictError otherwise). */
  create(input: CreateSocialEntityInput, options?: RequestOptions): APIPromise<SocialEntity> {
    return this.core.request({ method: 'POST', path: '/social-entities', body: input }, options);
  }

  /** Only the fields given change; `null` clears an optional one; `contacts` replaces the list. */
  update(id: string, changes: Omit<UpdateSocialEntityInput, 'id'>, options?: RequestOptions): APIPromise<SocialEntity> {
    return this.core.request({ method: 'PATCH', path: `/social-entities/${segment(id)}`, body: changes }, options);
  }

  /** Leaves the list and takes no new agreement; its agreements stay. */
  archive(id: string, options?: RequestOptions): APIPromise<SocialEntity> {
    return this.core.request({ method: 'POST', path: `/social-entities/${segment(id)}/archive` }, options);
  }

  restore(id: string, options?: RequestOptions): APIPromise<SocialEntity> {
    return this.core.request({ method: 'POST', path: `/social-entities/${segment(id)}/restore` }, options);
  }
}

/**
 * Donation agreements (Ley 1/2025 art. 7) with a social entity, for establishments of the
 * organisation; `status` is `draft` until the signed document is uploaded (`uploadDocument`).
 */
export class DonationAgreements {
  constructor(private readonly core: HttpCore) {}

  list(query: ListDonationAgreementsQuery = {}, options?: RequestOptions): APIPromise<DonationAgreement[]> {
    return this.core.request({ method: 'GET', path: '/donation-agreements', query }, options);
  }

  get(id: string, options?: RequestOptions): APIPromise<DonationAgreement> {
    return this.core.request({ method: 'GET', path: `/donation-agreements/${segment(id)}` }, options);
  }

  create(input: CreateDonationAgreementInput, options?: RequestOptions): APIPromise<DonationAgreement> {
    return this.core.request({ method: 'POST', path: '/donation-agreements', body: input }, options);
  }

  /** Only the fields given change; `establishment_ids` replaces the list. */
  update(id: string, changes: Omit<UpdateDonationAgreementInput, 'id'>, options?: RequestOptions): APIPromise<DonationAgreement> {
    return this.core.request({ method: 'PATCH', path: `/donation-agreements/${segment(id)}`, body: changes }, options);
  }

  /**
   * Stores the signed agreement (a PDF of at most 10 MiB; it replaces the one stored) and answers
   * the agreement, whose `document.sha256` is the PDF's SHA-256.
   */
  uploadDocument(id: string, pdf: Uint8Array | ArrayBuffer | Blob, options?: RequestOptions): APIPromise<DonationAgreement> {
    return this.core.request(
      { method: 'PUT', path: `/donation-agreements/${segment(id)}/document`, rawBody: { data: pdf, contentType: 'application/pdf' } },
      options,
    );
  }

  /** The stored signed agreement, as the PDF's bytes (a NotFoundError while there is none). */
  downloadDocument(id: string, options?: RequestOptions): Promise<Uint8Array> {
    return download(this.core, { method: 'GET', path: `/donation-agreements/${segment(id)}/document` }, 'application/pdf', options);
  }
}

/**
 * Donations (Ley 1/2025 art. 6.4.b and 7): food this establishment offers to the social entity of
 * an agreement in force, line by line. Each line is a record of the register (destination:
 * donation) from the moment it is offered. States: `offered` → `accepted` (the entity takes at
 * least one line) | `refused` (none) → `collected` → `received`; a step from another state is a
 * ConflictError.
 */
export class Donations {
  constructor(private readonly core: HttpCore) {}

  /**
   * This establishment's donations of the key's mode, the latest offered first. Await it for one
   * page, or `for await` over it for every donation of every page.
   */
  list(query: ListDonationsQuery = {}, options?: RequestOptions): PagePromise<Donation> {
    return paginate(
      (offset) => this.core.send({ method: 'GET', path: '/donations', query: { ...query, offset } }, options),
      query.offset ?? 0,
    );
  }

  /** A donation with its lines. */
  get(id: string, options?: RequestOptions): APIPromise<Donation> {
    return this.core.request({ method: 'GET', path: `/donations/${segment(id)}` }, options);
  }

  /**
   * Offers a donation under an agreement in force that covers this establishment; each line becomes
   * a record in the same transaction. A BadRequestError names every problem in `details` (an
   * expired or draft agreement, food the agreement does not accept, a line past its use-by date),
   * and nothing is stored. Values left out are filled from the line's product.
   */
  create(input: CreateDonationInput, options?: RequestOptions): APIPromise<Donation> {
    return this.core.request({ method: 'POST', path: '/donations', body: input }, options);
  }

  /**
   * The entity's answer to an offered donation, every line once: `accepted`, or `refused` with its
   * `reason`. A refused line stays counted in `awaiting_reroute` until `rerouteLine` sends it elsewhere.
   */
  decide(id: string, decision: DecideDonationInput, options?: RequestOptions): APIPromise<Donation> {
    return this.core.request({ method: 'POST', path: `/donations/${segment(id)}/decision`, body: decision }, options);
  }

  /** Marks an accepted donation collected. */
  collect(id: string, options?: RequestOptions): APIPromise<Donation> {
    return this.core.request({ method: 'POST', path: `/donations/${segment(id)}/collect` }, options);
  }

  /** Marks a collected donation received by the entity. */
  receive(id: string, options?: RequestOptions): APIPromise<Donation> {
    return this.core.request({ method: 'POST', path: `/donations/${segment(id)}/receive` }, options);
  }

  /**
   * Sends a line the entity refused down the food-waste hierarchy to `destino_id`, a destination
   * below donation: its record is corrected by a new record (with the entity's reason and your
   * `note`), never edited. Once per line (a ConflictError after).
   */
  rerouteLine(id: string, lineId: string, input: RerouteDonationLineInput, options?: RequestOptions): APIPromise<Donation> {
    return this.core.request({ method: 'POST', path: `/donations/${segment(id)}/lines/${segment(lineId)}/reroute`, body: input }, options);
  }

  /**
   * A one-time link for the social entity's volunteer, who has no account, to accept or refuse
   * each line of an offered donation and sign the handover note. Its token is in `url`'s fragment
   * (`#dln_…`) and is shown only in this answer: send the URL to the entity (or show it as a QR
   * code) and keep it no longer than that. It expires after `expires_in_hours` (48 by default, 168
   * at most); a new link replaces the donation's last one. A ConflictError unless the donation is
   * offered. The signing page itself answers a used, replaced or expired link with 410 (`gone`).
   */
  createLink(id: string, params: CreateDonationLinkInput = {}, options?: RequestOptions): APIPromise<DonationLink> {
    return this.core.request({ method: 'POST', path: `/donations/${segment(id)}/link`, body: params }, options);
  }

  /**
   * The year's tax pack (Ley 49/2002 art. 18 and 20, Ley 37/1992 art. 79.Tres and 91.Cuatro), per
   * donor company (CIF): each donation's VAT and art. 18 base, each social entity's deduction
   * (40 %, 50 % on recurrence) and, with `taxable_base` (euros as a string, e.g. `'250000.00'`),
   * the 15 % limit. Of the accepted lines of donations collected in `year` (Spain's calendar), of
   * the key's mode; an Enterprise Multi key sees the organisation (`cif` picks one company), any
   * other key its establishment's share.
   */
  taxPack(query: DonationTaxPackQuery, options?: RequestOptions): APIPromise<DonationTaxPack> {
    return this.core.request({ method: 'GET', path: '/donations/tax-pack', query }, options);
  }

  /**
   * The tax pack as a spreadsheet's CSV, its bytes: UTF-8 with a BOM, `;` between cells, decimal
   * commas, dd/mm/yyyy dates and CRLF, one row per company, entity, establishment and donation.
   */
  taxPackCsv(query: DonationTaxPackQuery, options?: RequestOptions): Promise<Uint8Array> {
    return download(this.core, { method: 'GET', path: '/donations/tax-pack.csv', query }, 'text/csv', options);
  }

  /** The tax pack's summary as a PDF (in Spanish, with the notes in full), its bytes. */
  taxPackPdf(query: DonationTaxPackQuery, options?: RequestOptions): Promise<Uint8Array> {
    return download(this.core, { method: 'GET', path: '/donations/tax-pack.pdf', query }, 'application/pdf', options);
  }

  /**
   * The certificate of Ley 49/2002 art. 24 of the year's donations to one social entity, pre-filled
   * for the entity to sign, one per donor company, as the PDF's bytes. A NotFoundError when nothing
   * was handed over to it that year.
   */
  taxCertificatePdf(entityId: string, query: DonationCertificateQuery, options?: RequestOptions): Promise<Uint8Array> {
    return download(
      this.core,
      { method: 'GET', path: `/donations/tax-pack/certificates/${segment(entityId)}.pdf`, query },
      'application/pdf',
      options,
    );
  }

  /**
   * A one-time link for the social entity's representative to read and sign, without an account,
   * the certificate of Ley 49/2002 art. 24 of one donor company's gifts of `year` (every line it
   * accepted, with its day of handover, kilos and art. 18 value). Signed, it is stored as the
   * year's signed certificate (`signedCertificatePdf`), replacing one uploaded before. Its token is
   * in `url`'s fragment and is shown only in this answer; a new link for the same certificate
   * replaces the last. `cif` may be left out when the key sees one company that gave to the entity
   * that year (a BadRequestError asks for it otherwise); a NotFoundError when nothing was given.
   */
  createCertificateLink(entityId: string, params: CreateCertificateLinkInput, options?: RequestOptions): APIPromise<DonationLink> {
    return this.core.request({ method: 'POST', path: `/donations/tax-pack/certificates/${segment(entityId)}/link`, body: params }, options);
  }

  /**
   * Stores the certificate the social entity signed for the year's gifts (the pre-filled one, or
   * its own; a PDF of at most 10 MiB) and answers it with its SHA-256, which the tax pack then
   * shows as the entity's `signed_certificate`. One per donor company, entity, year and mode: a new
   * upload replaces it (the audit log keeps the hash it replaced). `cif` names the company when the
   * key sees several that gave to the entity that year (a BadRequestError otherwise); a
   * NotFoundError when the company handed the entity nothing that year.
   */
  uploadSignedCertificate(
    entityId: string,
    query: DonationCertificateQuery,
    pdf: Uint8Array | ArrayBuffer | Blob,
    options?: RequestOptions,
  ): APIPromise<DonationSignedCertificate> {
    return this.core.request(
      {
        method: 'PUT',
        path: `/donations/tax-pack/certificates/${segment(entityId)}/signed`,
        query,
        rawBody: { data: pdf, contentType: 'application/pdf' },
      },
      options,
    );
  }

  /** The stored signed certificate, as the PDF's bytes (a NotFoundError while there is none). */
  signedCertificatePdf(entityId: string, query: DonationCertificateQuery, options?: RequestOptions): Promise<Uint8Array> {
    return download(
      this.core,
      { method: 'GET', path: `/donations/tax-pack/certificates/${segment(entityId)}/signed`, query },
      'application/pdf',
      options,
    );
  }
}
