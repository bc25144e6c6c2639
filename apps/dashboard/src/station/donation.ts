import type { FoodCategory } from '@merma/schema';

/**
 * A donation offered at the station (`/station/donations…`, apps/server/src/http/surfaces/station.ts):
 * the agreement, the lines as the cook types them, the offer's body, and the signing link the
 * entity's volunteer opens from its QR code.
 *
 * **Online only, never through the outbox.** A record can wait in the outbox for hours and still
 * be true: it says what was thrown away, at the time of the tap. A donation cannot: its whole point
 * is the volunteer standing at the counter, signing from the QR code now, and the server checks the
 * agreement, categories and dates as they are at the moment it is offered. An offer queued offline
 * would reach the register later with no one there to sign it, and the food would already have gone
 * elsewhere. So the station says donations need the network and sends nothing until there is one;
 * the Idempotency-Key of each offer and link is still kept for its retries, so that a tap sent twice
 * (an answer lost) stores one donation.
 */

export type DonationUnit = 'kg' | 'unit';

export type StationAgreement = {
  id: string;
  entity_name: string;
  accepted_food_categories: FoodCategory[];
  conditions: { chilled: boolean; frozen: boolean; cooked: boolean; near_best_before: boolean };
  valid_until: string;
};

export type StationDonation = {
  id: string;
  status: 'offered' | 'accepted' | 'refused' | 'collected' | 'received';
  entity_name: string;
  offered_at: string;
  lines: { id: string; description: string; food_category: FoodCategory; quantity: number; unit: string; net_kg: number; status: string }[];
  signed: { name: string; signed_at: string } | null;
};

export type SigningLink = { url: string; expires_at: string };

/** A line as typed: text fields kept as typed (a decimal comma, an empty date) until the offer. */
export type DraftLine = {
  food_category: FoodCategory;
  description: string;
  quantity: string;
  unit: DonationUnit;
  best_before: string;
  use_by: string;
};

export type DonationOffer = {
  agreement_id: string;
  lines: {
    food_category: FoodCategory;
    description: string;
    quantity: number;
    unit: DonationUnit;
    best_before?: string;
    use_by?: string;
  }[];
};

/** How often the QR screen asks whether the volunteer has signed. */
export const SIGNED_POLL_MS = 3_000;

/** The agreement to offer under when there is no choice to make: the only one in force. */
export function onlyAgreement(agreements: StationAgreement[]): StationAgreement | null {
  return agreements.length === 1 ? (agreements[0] ?? null) : null;
}

/** A new line of `category`, described by its name until the cook types something better. */
export function newLine(food_category: FoodCategory, name: string): DraftLine {
  return { food_category, description: name, quantity: '', unit: 'kg', best_before: '', use_by: '' };
}

/** The typed quantity as a number (a decimal comma or point, to the gram or unit's thousandth); null when it is not one. */
export function quantityOf(typed: string): number | null {
  const text = typed.trim().replace(',', '.');
  if (!/^\d+(\.\d{1,3})?$/.test(text)) return null;
  const value = Number(text);
  return value > 0 && value <= 1_000_000 ? value : null;
}

/** Why a line cannot be offered (a message key), or null when it can. */
export function lineProblem(line: DraftLine, agreement: StationAgreement | null): 'description' | 'quantity' | 'category' | null {
  if (!line.description.trim()) return 'description';
  if (quantityOf(line.quantity) === null) return 'quantity';
  if (agreement && !agreement.accepted_food_categories.includes(line.food_category)) return 'category';
  return null;
}

/** The offer's body (the API's CreateDonationInput), or null while a line is not ready. */
export function offerBody(agreement: StationAgreement, lines: DraftLine[]): DonationOffer | null {
  if (lines.length === 0 || lines.some((l) => lineProblem(l, agreement) !== null)) return null;
  return {
    agreement_id: agreement.id,
    lines: lines.map((l) => ({
      food_category: l.food_category,
      description: l.description.trim(),
      quantity: quantityOf(l.quantity) as number,
      unit: l.unit,
      ...(l.best_before ? { best_before: l.best_before } : {}),
      ...(l.use_by ? { use_by: l.use_by } : {}),
    })),
  };
}

/** Whether the polling can stop: the entity signed, or answered some other way (the dashboard, the API). */
export function settledDonation(donation: StationDonation | undefined): boolean {
  return donation !== undefined && (donation.signed !== null || donation.status !== 'offered');
}
