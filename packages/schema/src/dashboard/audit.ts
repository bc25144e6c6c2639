import { z } from 'zod';
import { IsoDate, Timestamp, Uuid } from '../common.js';
import { MAX_PAGE_LIMIT } from '../constants.js';
import { KeysetCursor } from '../cursor.js';

/** The audit log (`audit`). */

/** What the audit log records. */
export const AUDIT_ACTIONS = [
  'user.signed_in',
  'user.sign_in_failed',
  'user.signed_out_everywhere',
  'user.password_reset',
  'api_key.created',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.reactivated',
  'webhook.secret_rotated',
  'webhook.test_sent',
  'webhook.delivery_resent',
  'integration.created',
  'integration.updated',
  'integration.secret_rotated',
  'integration.revoked',
  'integration.line_mapped',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'invitation.revoked',
  'shift.created',
  'shift.updated',
  'shift.archived',
  'shift.restored',
  'shift.deleted',
  'establishment.updated',
  'organization.size_updated',
  'opening.weekdays_set',
  'closure.created',
  'closure.deleted',
  'production_settings.updated',
  'station.pairing_started',
  'station.revoked',
  'tare_preset.created',
  'tare_preset.deleted',
  'product.created',
  'product.updated',
  'product.deactivated',
  'product.reactivated',
  'product.imported',
  'plan.generated',
  'plan.measure_updated',
  'training_session.created',
  'training_session.deleted',
  'waste_stream.updated',
  'waste_stream.removed',
  'record.created',
  'record.corrected',
  'social_entity.created',
  'social_entity.updated',
  'social_entity.archived',
  'social_entity.restored',
  'donation_agreement.created',
  'donation_agreement.updated',
  'donation_agreement.document_uploaded',
  'donation.offered',
  'donation.answer_recorded',
  'donation.link_created',
  'donation.collected',
  'donation.received',
  'donation.line_rerouted',
  'donation_certificate.uploaded',
  'donation_certificate.signed',
  'donation_certificate.link_created',
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

export const AuditEntry = z.object({
  id: Uuid,
  action: AuditAction,
  actor: z.object({ id: Uuid.nullable(), email: z.string() }).nullable(),
  target: z.string().nullable(),
  establishment_id: Uuid.nullable(),
  ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: Timestamp,
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** An IANA time zone name the runtime knows (`Europe/Madrid`). */
const TimeZoneName = z
  .string()
  .max(64)
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'unknown time zone');

/**
 * A page of the audit log, optionally filtered: `actor` (an e-mail, exact, any case), `action`, and
 * `from`/`to` — whole days, both included, read in `time_zone` (the zone the page shows times in;
 * UTC when absent). The filters travel with `cursor`: a later page is a page of the same filter.
 */
export const AuditQuery = z
  .strictObject({
    limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(50),
    /** The `next_cursor` of the previous page. */
    cursor: KeysetCursor.optional(),
    actor: z.string().trim().min(1).max(254).optional(),
    action: AuditAction.optional(),
    from: IsoDate.optional(),
    to: IsoDate.optional(),
    time_zone: TimeZoneName.optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: '`from` must not be after `to`', path: ['from'] });
export type AuditQuery = z.input<typeof AuditQuery>;
export const AuditPage = z.object({ entries: z.array(AuditEntry), next_cursor: z.string().nullable() });
export type AuditPage = z.infer<typeof AuditPage>;
