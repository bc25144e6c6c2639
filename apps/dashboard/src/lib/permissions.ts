import { type Role, roleCan } from '@merma/schema/roles';

/**
 * What each role may do, to hide or disable controls: read from the one table the server's
 * procedures use (ROLE_CAPABILITIES). The server checks every call by itself; this only spares
 * people buttons that would be refused.
 */
export const can = {
  /** API keys are for the people who build integrations: viewers do not see them at all. */
  viewKeys: (role: Role) => roleCan(role, 'build'),
  manageKeys: (role: Role) => roleCan(role, 'build'),
  manageIntegrations: (role: Role) => roleCan(role, 'build'),
  manageTeam: (role: Role) => roleCan(role, 'administer'),
  /** The company's size and an establishment's activity and floor area ("does the law oblige you?"). */
  manageCompliance: (role: Role) => roleCan(role, 'administer'),
  viewAudit: (role: Role) => roleCan(role, 'administer'),
  /** Viewers see every waste page and change nothing there. */
  manageShifts: (role: Role) => roleCan(role, 'build'),
  /** The organisation's products: add, edit, deactivate, import. */
  manageProducts: (role: Role) => roleCan(role, 'build'),
  generatePlan: (role: Role) => roleCan(role, 'build'),
  /** Adding a record or correcting one by hand. */
  writeRecords: (role: Role) => roleCan(role, 'build'),
  /** Social entities and donation agreements, and the signed agreement's PDF: commitments of the organisation. */
  manageDonations: (role: Role) => roleCan(role, 'administer'),
  /** Offering a donation (each line a record) and following it: its signing link, the entity's answer, collection, a refused line's destination. */
  offerDonations: (role: Role) => roleCan(role, 'build'),
};
