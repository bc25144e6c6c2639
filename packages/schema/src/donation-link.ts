import { z } from 'zod';
import { FoodCategory, IsoDate, Timestamp, text, Uuid } from './common.js';
import { Allergen, DonationLineStatus, DonationStatus, DonationStorage, DonationUnit, LineDecision } from './donation-handover.js';
import { Envelope } from './envelope.js';

/**
 * The social entity's signing link: a one-time, expiring link the kitchen sends (or shows as a QR
 * code) so that the entity's volunteer, without an account, sees the donation's lines, accepts or
 * refuses each with a reason and signs the handover note. The link is a credential of its own: its
 * token (`dln_…`) travels in the URL's fragment, never in a path or query a server or proxy logs,
 * and the page sends it as `Authorization: Bearer`.
 */

/** Hours a link lives by default, and at most. */
export const DONATION_LINK_DEFAULT_HOURS = 48;
export const DONATION_LINK_MAX_HOURS = 168;
/** Largest drawn signature accepted: a PNG, as a data URL's base64. */
export const MAX_SIGNATURE_PNG_BYTES = 200 * 1024;

export const CreateDonationLinkInput = z
  .strictObject({
    id: Uuid,
    expires_in_hours: z
      .number()
      .int()
      .min(1)
      .max(DONATION_LINK_MAX_HOURS)
      .default(DONATION_LINK_DEFAULT_HOURS)
      .describe('how long the link can be used (and the signed note downloaded through it)'),
  })
  .meta({ id: 'CreateDonationLinkInput' });
export type CreateDonationLinkInput = z.input<typeof CreateDonationLinkInput>;

export const DonationLink = z
  .object({
    url: z.string().describe('the page the entity opens; its token is in the fragment (`#…`) and is shown only this once'),
    expires_at: Timestamp,
  })
  .meta({ id: 'DonationLink' });
export const DonationLinkResponse = Envelope(DonationLink);

/** A person's identity document as written (DNI, NIE or passport). */
export const IdDocument = text(30).trim().min(3);

const PNG_DATA_URL = /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/;

export const Signature = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('drawn'),
    png: z
      .string()
      .max(Math.ceil((MAX_SIGNATURE_PNG_BYTES * 4) / 3) + 32)
      .regex(PNG_DATA_URL, 'must be a PNG data URL (data:image/png;base64,…)')
      .describe('the signature drawn on the screen'),
  }),
  z.strictObject({ kind: z.literal('typed'), text: text(200).trim().min(2).describe('the signer types their name as their signature') }),
]);

/** The volunteer's answer and signature, sent once through the link. */
export const SignDonationInput = z
  .strictObject({
    lines: z
      .array(LineDecision)
      .min(1)
      .refine((l) => new Set(l.map((d) => d.line_id)).size === l.length, 'each line once'),
    signer: z.strictObject({
      name: text(200).trim().min(2),
      id_document: IdDocument.describe('DNI, NIE or passport number'),
      signature: Signature,
    }),
  })
  .meta({ id: 'SignDonationInput' });
export type SignDonationInput = z.input<typeof SignDonationInput>;
export type SignDonationParsed = z.output<typeof SignDonationInput>;

/** What the volunteer sees: no book or market values, which are the donor's. */
export const DonationNote = z
  .object({
    donation_id: Uuid,
    status: DonationStatus,
    donor: z.object({ organization: z.string(), cif: z.string().nullable(), establishment: z.string() }),
    entity: z.object({ name: z.string(), nif: z.string() }),
    offered_at: Timestamp,
    expires_at: Timestamp.describe('when this link stops working'),
    lines: z.array(
      z.object({
        id: Uuid,
        position: z.number().int(),
        description: z.string(),
        food_category: FoodCategory,
        quantity: z.number(),
        unit: DonationUnit,
        net_kg: z.number(),
        lot: z.string().nullable(),
        best_before: IsoDate.nullable(),
        use_by: IsoDate.nullable(),
        storage: DonationStorage,
        cooked: z.boolean(),
        allergens: z.array(Allergen),
        temperature_c: z.number().nullable(),
        status: DonationLineStatus,
        refusal_reason: z.string().nullable(),
      }),
    ),
    signed: z
      .object({ name: z.string(), signed_at: Timestamp, sha256: z.string().describe("the signed note's PDF, SHA-256 in hexadecimal") })
      .nullable(),
  })
  .meta({ id: 'DonationNote' });
export type DonationNote = z.infer<typeof DonationNote>;
