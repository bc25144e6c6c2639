import { AppError } from '../../errors.js';

/**
 * Donations, first part: social entities and donation agreements (Ley 1/2025 art. 6.4.b and art. 7).
 *
 * - entities.ts: the social entities and food banks, one per NIF in the organisation; archived, never deleted.
 * - agreements.ts: the agreements with an entity for establishments of the organisation, and their
 *   status, read from the dates, the renewal and the signed document (never stored).
 * - documents.ts: the signed PDF, kept as sent with its SHA-256; served by its own route
 *   (http/surfaces/agreement-documents.ts), since a procedure's input is JSON.
 * - expiring.ts: the daily `agreement.expiring` webhook.
 *
 * Data model decision: entities and agreements belong to the organisation and carry no `livemode`.
 * DESIGN.md asks `establishment_id` and `livemode` of tables that hold an establishment's data of one
 * mode (records, shifts, sessions); an agreement is neither: it is a legal fact signed by the
 * business for several of its establishments, which the law and the tax office read as it is. The
 * product catalogue (modules/catalog) is the precedent: organisation-wide, read by both modes,
 * changed only with a live key (or, later, the dashboard), so that a test integration cannot sign
 * the organisation up to anything. Its webhook is sent in live mode for the same reason.
 */

/** Agreements and entities are changed with a live key; a test key reads them. */
export function liveOnly(livemode: boolean): void {
  if (!livemode) {
    throw new AppError(
      'forbidden',
      'Social entities and donation agreements are the organisation’s legal records, shared by test and live data: change them with a live key (svc_live_…); a test key reads them',
    );
  }
}
