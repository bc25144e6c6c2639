import { z } from 'zod';
import { Permission, Timestamp, text, Uuid } from '../common.js';
import { ALL_PERMISSIONS } from '../constants.js';
import { KeyMode } from './common.js';

/** API keys as the dashboard makes, lists and revokes them (`keys`). */

/** A key as listed: never the key itself, which is shown once when created. */
export const ApiKeySummary = z.object({
  id: Uuid,
  name: z.string(),
  mode: KeyMode,
  /** `svc_test_…a1B2`: the prefix and the last four characters, enough to recognise a key. */
  redacted: z.string(),
  permissions: z.array(z.string()),
  /** The dashboard user who made it (name, '' when they gave none, and e-mail); null for keys made by merma-admin. */
  created_by: z.object({ id: Uuid, email: z.string(), name: z.string() }).nullable(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
});
export type ApiKeySummary = z.infer<typeof ApiKeySummary>;

export const CreateApiKeyInput = z.strictObject({
  establishment_id: Uuid,
  name: text(80).trim().min(1),
  mode: KeyMode,
  /** `['*']` for every permission, or a non-empty list of the documented names. */
  permissions: z.union([z.tuple([z.literal(ALL_PERMISSIONS)]), z.array(Permission).min(1)]),
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

export const CreatedApiKey = ApiKeySummary.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const KeyIdInput = z.strictObject({ establishment_id: Uuid, id: Uuid });
