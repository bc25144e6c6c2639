import { z } from 'zod';
import { Plan, Timestamp, text, Uuid } from '../common.js';
import { MAIL_LANGUAGES } from '../constants.js';
import { Role } from './common.js';

/** Signing in, invitation and password-reset links, and who the session is (`accounts`). */

/**
 * Password rules (NIST SP 800-63B, OWASP ASVS 2.1.1): long rather than complex. 12 characters at
 * least; at most 200, so that hashing a huge body costs nothing unusual. The server also refuses
 * guessable passwords (common ones, patterns, the account's e-mail), which a shape cannot express.
 */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;
export const Password = z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH);

export const Email = z
  .email()
  .max(254)
  .transform((e) => e.trim().toLowerCase());

/** A one-time token from an e-mailed link (invitation, password reset, sign-in link). */
export const LinkToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'malformed link');

export const SignInInput = z.strictObject({ email: Email, password: z.string().min(1).max(MAX_PASSWORD_LENGTH) });
export type SignInInput = z.input<typeof SignInInput>;

export const LinkTokenInput = z.strictObject({ token: LinkToken });

export const AcceptInvitationInput = z.strictObject({
  token: LinkToken,
  /** Needed only by someone without an account yet. */
  name: text(120).trim().min(1).optional(),
  password: Password.optional(),
});
export type AcceptInvitationInput = z.input<typeof AcceptInvitationInput>;

export const RequestPasswordResetInput = z.strictObject({ email: Email });
export const ResetPasswordInput = z.strictObject({ token: LinkToken, password: Password });
export type ResetPasswordInput = z.input<typeof ResetPasswordInput>;

/** What an invitation link shows before it is accepted. */
export const InvitationPreview = z.object({
  organization: z.string(),
  email: z.string(),
  role: Role,
  /** The invited address already has an account: accepting only needs signing in. */
  has_account: z.boolean(),
  expires_at: Timestamp,
});
export type InvitationPreview = z.infer<typeof InvitationPreview>;

/** `cif`: the establishment's tax id (set with `merma-admin establishment create --cif`), printed on its prevention plan. */
export const DashboardEstablishment = z.object({ id: Uuid, name: z.string(), cif: z.string(), timezone: z.string() });
export type DashboardEstablishment = z.infer<typeof DashboardEstablishment>;

/** The signed-in user and the organisation the session works in. */
export const Me = z.object({
  user: z.object({ id: Uuid, email: z.string(), name: z.string() }),
  organization: z.object({
    id: Uuid,
    name: z.string(),
    plan: Plan,
    /** false for basic and pro, and for a canceled subscription: the API answers 403 plan_required. */
    api_enabled: z.boolean(),
  }),
  role: Role,
  organizations: z.array(z.object({ id: Uuid, name: z.string(), role: Role })),
  establishments: z.array(DashboardEstablishment),
  /** Send it as `x-csrf-token` on every call that changes something (also readable from the CSRF cookie: `merma_csrf`, `__Host-merma_csrf` in production). */
  csrf_token: z.string(),
  /** Where this server is reached (its `PUBLIC_URL`), for the examples the dashboard shows (`curl <public_url>/api/v1/records`). */
  public_url: z.string(),
});
export type Me = z.infer<typeof Me>;

/**
 * `accounts.me`: the session's `Me`, or `null` when the request has no session (none yet, ended or
 * expired). Asking "who am I?" is not an error, so a signed-out browser gets a 200 with `null`,
 * as an auth library's `getSession()` does, and no 401 in its console.
 */
export const MaybeMe = Me.nullable();
export type MaybeMe = z.infer<typeof MaybeMe>;

export const SwitchOrganizationInput = z.strictObject({ organization_id: Uuid });

/** The dashboard language a user chose, kept as the language of their e-mails. */
export const SetLanguageInput = z.strictObject({ language: z.enum(MAIL_LANGUAGES) });
export type SetLanguageInput = z.input<typeof SetLanguageInput>;
