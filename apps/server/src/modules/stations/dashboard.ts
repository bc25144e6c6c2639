import {
  DashboardAddTarePresetInput,
  DashboardDeleteTarePresetInput,
  DashboardStartPairingInput,
  DashboardStationIdInput,
  DashboardTarePresetsInput,
  ModeScope,
  StartedPairing,
  StationDevice,
  TarePreset,
} from '@merma/schema/dashboard';
import { z } from 'zod';
import { sqlOfTransaction } from '../../db/sql.js';
import { ADMINS, audited, dashboardRouter, establishmentProcedure, scopedProcedure } from '../../trpc/dashboard-base.js';
import { listDevices, revokeDevice, startPairing } from './service.js';
import { addTarePreset, deleteTarePreset, listTarePresets } from './tare-presets.js';

/**
 * The stations page: owners and admins pair a kitchen tablet (a one-time code, shown once) and
 * revoke one; each in the audit log. Only they see the devices, as only they manage the team.
 * They also name the kitchen's containers with their weight (tare-presets.ts), which every station
 * of the establishment offers as a tare.
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

  tarePresets: establishmentProcedure
    .meta({ roles: ADMINS })
    .input(DashboardTarePresetsInput)
    .output(z.array(TarePreset))
    .query(({ ctx }) => listTarePresets(ctx.sql, ctx.establishment.id)),

  addTarePreset: establishmentProcedure
    .meta({ roles: ADMINS })
    .input(DashboardAddTarePresetInput)
    .output(TarePreset)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'tare_preset.created',
        (tx, now) => addTarePreset(sqlOfTransaction(tx), ctx.establishment.id, { name: input.name, tare_kg: input.tare_kg }, now),
        (preset) => ({ target: preset.name, details: { tare_kg: preset.tare_kg } }),
      ),
    ),

  deleteTarePreset: establishmentProcedure
    .meta({ roles: ADMINS })
    .input(DashboardDeleteTarePresetInput)
    .output(TarePreset)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'tare_preset.deleted',
        (tx) => deleteTarePreset(sqlOfTransaction(tx), ctx.establishment.id, input.id),
        (preset) => ({ target: preset.name, details: { tare_kg: preset.tare_kg } }),
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
