import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import type {
  CreateDonationAgreementInput,
  CreateSocialEntityInput,
  DonationAgreement,
  ListDonationAgreementsQuery,
  SocialEntity,
  UpdateDonationAgreementInput,
  UpdateSocialEntityInput,
} from '../generated/api-types.js';
import { segment } from './path.js';

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
  async downloadDocument(id: string, options?: RequestOptions): Promise<Uint8Array> {
    const response = await this.core
      .request(
        { method: 'GET', path: `/donation-agreements/${segment(id)}/document` },
        { ...options, headers: { accept: 'application/pdf', ...options?.headers } },
      )
      .asResponse();
    return new Uint8Array(await response.arrayBuffer());
  }
}
