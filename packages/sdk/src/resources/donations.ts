import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { type PagePromise, paginate } from '../core/pagination.js';
import type {
  CreateDonationAgreementInput,
  CreateDonationInput,
  CreateSocialEntityInput,
  DecideDonationInput,
  Donation,
  DonationAgreement,
  ListDonationAgreementsQuery,
  ListDonationsQuery,
  RerouteDonationLineInput,
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
}
