import { z } from 'zod';
import { IsoDate, Timestamp, text, Uuid } from './common.js';
import { TAX_PACK_MAX_YEAR, TAX_PACK_MIN_YEAR } from './constants.js';
import { DONATION_LINK_DEFAULT_HOURS, DONATION_LINK_MAX_HOURS, IdDocument, Signature } from './donation-link.js';
import { CompanyCif } from './donation-tax.js';
import { Envelope } from './envelope.js';

/**
 * The certificate of Ley 49/2002 art. 24, signed through a link: the kitchen makes a one-time,
 * expiring link of the same kind as a donation's (`dln_…` in the URL's fragment, a credential of
 * its own) for one social entity, one donor company and one tax year; the entity's representative
 * opens it without an account, reads the pre-filled certificate — every delivery of the year with
 * its goods, kilos and art. 18 value — and signs it (name, identity document, position, place,
 * drawn or typed signature). The signed certificate is rendered as a PDF and stored as the year's
 * signed certificate, as an upload would be.
 */

/** `POST /donations/tax-pack/certificates/{entity_id}/link`. */
export const CreateCertificateLinkInput = z
  .strictObject({
    entity_id: Uuid,
    year: z.number().int().min(TAX_PACK_MIN_YEAR).max(TAX_PACK_MAX_YEAR).describe('the tax year the certificate is of'),
    cif: CompanyCif.optional().describe(
      "the donor company (its establishments' CIF); may be left out when the key sees one that gave to the entity in the year",
    ),
    expires_in_hours: z
      .number()
      .int()
      .min(1)
      .max(DONATION_LINK_MAX_HOURS)
      .default(DONATION_LINK_DEFAULT_HOURS)
      .describe('how long the link can be used (and the signed certificate downloaded through it)'),
  })
  .meta({ id: 'CreateCertificateLinkInput' });
export type CreateCertificateLinkInput = z.input<typeof CreateCertificateLinkInput>;
export type CreateCertificateLinkParsed = z.output<typeof CreateCertificateLinkInput>;

/** What the representative sends once: who signs, in what capacity, where, and the signature. */
export const SignCertificateInput = z
  .strictObject({
    signer: z.strictObject({
      name: text(200).trim().min(2),
      id_document: IdDocument.describe('DNI, NIE or passport number'),
      role: text(120).trim().min(2).describe("the signer's position in the entity (presidente, secretaria, representante legal…)"),
      signature: Signature,
    }),
    place: text(120).trim().min(2).describe('where the certificate is issued (a town)'),
  })
  .meta({ id: 'SignCertificateInput' });
export type SignCertificateInput = z.input<typeof SignCertificateInput>;
export type SignCertificateParsed = z.output<typeof SignCertificateInput>;

/** The certificate as the entity reads it through its link, before and after signing. */
export const CertificateToSign = z
  .object({
    year: z.number().int(),
    livemode: z.boolean().describe('false: a test certificate, of test donations, with no tax value'),
    expires_at: Timestamp.describe('when this link stops working'),
    entity: z.object({ name: z.string(), nif: z.string(), regime_opted_in: z.boolean() }),
    donor: z.object({ name: z.string(), cif: z.string(), establishments: z.array(z.string()) }),
    deliveries: z
      .array(
        z.object({
          handed_over_on: IsoDate,
          description: z.string(),
          net_kg: z.number(),
          value: z.number().describe('art. 18 value: book value at handover, capped at market value, euros'),
        }),
      )
      .describe('every line the entity accepted from the company in the year, by day of handover'),
    totals: z.object({ net_kg: z.number(), value: z.number() }),
    signed: z
      .object({
        name: z.string(),
        role: z.string(),
        signed_at: Timestamp,
        sha256: z.string().describe("the signed certificate's PDF, SHA-256 in hexadecimal"),
      })
      .nullable(),
  })
  .meta({ id: 'CertificateToSign' });
export type CertificateToSign = z.infer<typeof CertificateToSign>;
export const CertificateToSignResponse = Envelope(CertificateToSign);
