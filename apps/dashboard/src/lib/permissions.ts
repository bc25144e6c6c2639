import type { Role } from '@merma/schema/dashboard';

/**
 * What each role may do, to hide or disable controls. The server checks every call by itself; this
 * only spares people buttons that would be refused.
 */
export const can = {
  /** API keys are for the people who build integrations: viewers do not see them at all. */
  viewKeys: (role: Role) => role !== 'viewer',
  manageKeys: (role: Role) => role !== 'viewer',
  manageIntegrations: (role: Role) => role !== 'viewer',
  manageTeam: (role: Role) => role === 'owner' || role === 'admin',
  viewAudit: (role: Role) => role === 'owner' || role === 'admin',
  /** Viewers see every waste page and change nothing there. */
  manageShifts: (role: Role) => role !== 'viewer',
  generatePlan: (role: Role) => role !== 'viewer',
  /** Adding a record or correcting one by hand (the server refuses viewers too). */
  writeRecords: (role: Role) => role !== 'viewer',
};
