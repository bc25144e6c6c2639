import { z } from 'zod';
import { DateOrDateTime, PaginationQuery, Timestamp, text, Uuid } from './common.js';
import { Envelope, ListEnvelope } from './envelope.js';

/** A registration session: the records weighed together (e.g. a closing count after service). */
export const Session = z
  .object({
    id: Uuid,
    name: z.string(),
    shift_id: Uuid.nullable(),
    status: z.enum(['open', 'completed']),
    started_at: Timestamp,
    completed_at: Timestamp.nullable(),
    record_count: z.number().int(),
    total_kg: z.number(),
  })
  .meta({ id: 'Session' });
export type Session = z.infer<typeof Session>;

export const CreateSessionInput = z
  .strictObject({ name: text(100).trim().min(1), shift_id: Uuid.nullish() })
  .meta({ id: 'CreateSessionInput' });
export type CreateSessionInput = z.input<typeof CreateSessionInput>;

export const ListSessionsQuery = z
  .strictObject({
    status: z.enum(['open', 'completed']).optional(),
    from: DateOrDateTime.optional(),
    to: DateOrDateTime.optional(),
    ...PaginationQuery,
  })
  .meta({ id: 'ListSessionsQuery' });
export type ListSessionsQuery = z.input<typeof ListSessionsQuery>;

export const SessionIdParams = z.strictObject({ id: Uuid });
export const SessionResponse = Envelope(Session);
export const ListSessionsResponse = ListEnvelope(Session);
