import { DashboardStartPairingInput, DashboardStationIdInput, ModeScope, StartedPairing, StationDevice } from '@merma/schema/dashboard';
import { z } from 'zod';
import { sqlOfTransaction } from '../../db/sql.js';
import { ADMINS, audited, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { listDevices, revokeDevice, startPairing } from './service.js';

/**
 * The stations page: owners and admins pair a kitchen tablet (a one-time code, shown once) and
 * revoke one; each in the audit log. Only they see the devices, as only they manage the team.
 */
export const stationsDashboardRouter = dashboardRouter({
  list: scopedProcedure
    .meta({ roles: ADMINS })
    .input(ModeScope)
    .output(z.array(StationDevice))
    .query(({ ctx }) => listDevices(ctx.sql, ctx.tenant, ctx.clock())),

  startPairing: scopedProcedure
    .meta({ roles: ADMINS })
    .input(DashboardStartPairingInput)
    .output(StartedPairing)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'station.pairing_started',
        (tx, now) => startPairing(sqlOfTransaction(tx), ctx.tenant, { name: input.name, createdBy: ctx.user.userId, now }),
        // The code is a secret: never in the audit log.
        (started) => ({ target: started.device.name, details: { device_id: started.device.id, livemode: input.livemode } }),
      ),
    ),

  revoke: scopedProcedure
    .meta({ roles: ADMINS })
    .input(DashboardStationIdInput)
    .output(StationDevice)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'station.revoked',
        (tx, now) => revokeDevice(sqlOfTransaction(tx), ctx.tenant, { id: input.id, now }),
        (device) => ({ target: device.name, details: { device_id: device.id, livemode: input.livemode } }),
      ),
    ),
});
