import { ApiKeySummary, CreateApiKeyInput, CreatedApiKey, KeyIdInput } from '@merma/schema/dashboard';
import { z } from 'zod';
import { audited, BUILDERS, dashboardRouter, establishmentProcedure } from '../../trpc/dashboard-base.js';
import { createApiKey, listApiKeys, revokeApiKey } from './service.js';

/** The API keys page: owners, admins and developers; viewers do not see keys at all. */
export const keysDashboardRouter = dashboardRouter({
  list: establishmentProcedure
    .meta({ roles: BUILDERS })
    .output(z.array(ApiKeySummary))
    .query(({ ctx }) => listApiKeys(ctx.db, ctx.establishment.id)),

  create: establishmentProcedure
    .meta({ roles: BUILDERS })
    .input(CreateApiKeyInput)
    .output(CreatedApiKey)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'api_key.created',
        (tx, now) =>
          createApiKey(tx, {
            establishmentId: ctx.establishment.id,
            name: input.name,
            mode: input.mode,
            permissions: input.permissions,
            createdBy: ctx.user.userId,
            now,
          }),
        (created) => ({
          target: created.redacted,
          details: { key_id: created.id, name: created.name, mode: created.mode, permissions: created.permissions },
        }),
      ),
    ),

  revoke: establishmentProcedure
    .meta({ roles: BUILDERS })
    .input(KeyIdInput)
    .output(ApiKeySummary)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'api_key.revoked',
        (tx, now) => revokeApiKey(tx, { establishmentId: ctx.establishment.id, id: input.id, now }),
        (revoked) => ({ target: revoked.redacted, details: { key_id: revoked.id, name: revoked.name } }),
      ),
    ),
});
