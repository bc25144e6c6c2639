/**
 * Members' roles and what each may do, without zod: the dashboard's first bundle reads them (to
 * show only the controls a member may use) and must not carry the schemas. `@merma/schema/dashboard`
 * re-exports them beside the `Role` schema.
 */

/** A member's role in an organisation, strongest first. */
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What each role may do: the one table. The server's procedures name the roles they allow from it
 * (and refuse the others, whatever the page shows); the dashboard reads it to show only the
 * controls a member may use. Every member reads every waste page.
 */
export const ROLE_CAPABILITIES = {
  /**
   * Build and run integrations and the data: API keys, integrations, webhooks, shifts and
   * registration sessions, records by hand, the plan, and donations offered under the agreements
   * (each line is a record of the register) and followed to their end.
   */
  build: ['owner', 'admin', 'developer'],
  /**
   * Run the organisation: the team (invite, change roles, remove), the audit log, and the social
   * entities and donation agreements it signs (Ley 1/2025: legal commitments, not integration work).
   */
  administer: ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;
export type Capability = keyof typeof ROLE_CAPABILITIES;
export const roleCan = (role: Role, capability: Capability): boolean => (ROLE_CAPABILITIES[capability] as readonly Role[]).includes(role);
