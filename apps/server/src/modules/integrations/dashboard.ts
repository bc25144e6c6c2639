import {
  CreateIntegrationInput,
  Integration,
  IntegrationScope,
  IntegrationWithUrl,
  MapRefusedLineInput,
  MapRefusedLineResult,
  RefusedLine,
  RefusedLinesInput,
  RotateIntegrationInput,
  UpdateIntegrationInput,
} from '@merma/schema/dashboard';
import { z } from 'zod';
import type { SecretBox } from '../../secrets/cipher.js';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import type { TargetPolicy } from '../webhooks/target.js';
import { listRefusedLines, mapRefusedLine } from './refused.js';
import { createIntegration, listIntegrations, revokeIntegration, rotateIntegration, updateIntegration } from './service.js';

/** What the audit log keeps of an integration: never a secret, not even Odoo's redacted URL. */
const described = (i: Integration, details: Record<string, unknown> = {}) => ({
  target: `${i.kind}: ${i.name}`,
  details: { integration_id: i.id, kind: i.kind, livemode: i.livemode, ...details },
});

/** The credentials and settings a change touched, by name (values are never audited). */
const touched = (input: Record<string, unknown>) =>
  ['name', 'signature_key', 'access_token', 'location_id', 'odoo_url', 'database', 'login', 'api_key', 'company_id'].filter(
    (k) => input[k] !== undefined,
  );

/**
 * The Integrations page's Square and Odoo connections of the selected establishment and mode.
 * Everyone in the organisation reads; owners, admins and developers change them. Secrets are
 * write-only; Odoo's URL, which holds its token, is answered once (`secret_url`) when made or
 * rotated.
 */
export function integrationsDashboardRouter(secrets: SecretBox, publicUrl: string, policy: TargetPolicy) {
  const deps = { secrets, publicUrl, policy };
  const writer = scopedProcedure.meta({ roles: BUILDERS });
  return dashboardRouter({
    list: scopedProcedure.output(z.array(Integration)).query(({ ctx }) => listIntegrations(ctx.db, ctx.scope, publicUrl, ctx.clock())),

    create: writer
      .input(CreateIntegrationInput)
      .output(IntegrationWithUrl)
      .mutation(({ ctx, input }) =>
        audited(
          ctx,
          'integration.created',
          (tx, now) => createIntegration(tx, ctx.scope, deps, input, now),
          (i) => described(i, { settings: touched(input) }),
        ),
      ),

    update: writer
      .input(UpdateIntegrationInput)
      .output(Integration)
      .mutation(({ ctx, input }) =>
        audited(
          ctx,
          'integration.updated',
          (tx, now) => updateIntegration(tx, ctx.scope, deps, input, now),
          (i) => described(i, { changed: touched(input) }),
        ),
      ),

    rotate: writer
      .input(RotateIntegrationInput)
      .output(IntegrationWithUrl)
      .mutation(({ ctx, input }) =>
        audited(
          ctx,
          'integration.secret_rotated',
          (tx, now) => rotateIntegration(tx, ctx.scope, deps, input, now),
          (i) => described(i, { grace_period_seconds: input.grace_period_seconds }),
        ),
      ),

    /** The lines it received and could not store, kept until mapped (refused.ts). */
    refusedLines: scopedProcedure
      .input(RefusedLinesInput)
      .output(z.array(RefusedLine))
      .query(({ ctx, input }) => listRefusedLines(ctx.db, ctx.scope, input.integration_id)),

    /** Maps a kept line's item to a product and stores the kept lines of that item. */
    mapRefusedLine: writer
      .input(MapRefusedLineInput)
      .output(MapRefusedLineResult)
      .mutation(({ ctx, input }) =>
        audited(
          ctx,
          'integration.line_mapped',
          (tx, now) => mapRefusedLine(tx, ctx.tenant, input, now),
          (r) => ({
            target: `integration ${input.integration_id}`,
            details: { integration_id: input.integration_id, line_id: input.line_id, product_id: input.product_id, stored: r.stored },
          }),
        ),
      ),

    revoke: writer
      .input(IntegrationScope)
      .output(Integration)
      .mutation(({ ctx, input }) =>
        audited(
          ctx,
          'integration.revoked',
          (tx, now) => revokeIntegration(tx, ctx.scope, publicUrl, input.id, now),
          (i) => described(i),
        ),
      ),
  });
}
