import { z } from 'zod';
import { FoodCategory, Sector, TimeOfDay, text, Uuid } from './common.js';
import { Envelope } from './envelope.js';

export const Cause = z.object({ id: Uuid, nombre: z.string(), icono: z.string(), activo: z.boolean() }).meta({ id: 'Cause' });
export type Cause = z.infer<typeof Cause>;
export const ListCausesResponse = Envelope(z.array(Cause));

export const Destination = z
  .object({
    id: Uuid,
    nombre: z.string(),
    orden: z.number().int(),
    es_recuperacion: z.boolean(),
    code: z.string().describe('stable key of the destination, e.g. `donation`'),
  })
  .meta({ id: 'Destination' });
export type Destination = z.infer<typeof Destination>;
export const ListDestinationsResponse = Envelope(z.array(Destination));

export const Establishment = z
  .object({ id: Uuid, name: z.string(), cif: z.string(), sector: Sector, timezone: z.string() })
  .meta({ id: 'Establishment' });
export type Establishment = z.infer<typeof Establishment>;
export const ListEstablishmentsResponse = Envelope(z.array(Establishment));

export const Product = z.object({ id: Uuid, name: z.string(), food_category: FoodCategory, ean: z.string() }).meta({ id: 'Product' });
export type Product = z.infer<typeof Product>;
export const ListProductsResponse = Envelope(z.array(Product));

/** A work shift. `end_time` earlier than `start_time` means it runs overnight (22:00-06:00). */
export const Shift = z.object({ id: Uuid, name: z.string(), start_time: TimeOfDay, end_time: TimeOfDay }).meta({ id: 'Shift' });
export type Shift = z.infer<typeof Shift>;
export const ListShiftsResponse = Envelope(z.array(Shift));

export const CreateShiftInput = z
  .strictObject({
    name: text(100).trim().min(1),
    start_time: TimeOfDay,
    end_time: TimeOfDay,
  })
  .refine((s) => s.start_time !== s.end_time, {
    message: 'end_time must differ from start_time',
    path: ['end_time'],
  })
  .meta({ id: 'CreateShiftInput' });
export type CreateShiftInput = z.input<typeof CreateShiftInput>;
export const CreateShiftResponse = Envelope(Shift);

/** Empty query for endpoints without parameters (unknown parameters are refused). */
export const NoQuery = z.strictObject({});
