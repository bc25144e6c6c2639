import { describe, expect, it } from 'vitest';
import { toAppError } from '../src/errors.js';
import { Prisma } from '../src/generated/prisma/client.ts';

/**
 * The one error classifier: a database that went away is a 503 the client may retry (with
 * Retry-After), never a 500, whichever layer reports it.
 */
describe('toAppError', () => {
  it('a connection closed under a Prisma transaction (P1017, a terminated backend) is service_unavailable', () => {
    const err = new Prisma.PrismaClientKnownRequestError('Server has closed the connection.', {
      code: 'P1017',
      clientVersion: '7',
      meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'ConnectionClosed' } } },
    });
    expect(toAppError(err).appError).toMatchObject({ code: 'service_unavailable', extra: { retryAfterSeconds: 1, shouldRetry: true } });
  });

  it('a pg error of a terminated backend (57P01) and a refused connection are service_unavailable', () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(toAppError(new Error('wrapped', { cause: terminated })).appError.code).toBe('service_unavailable');
    expect(toAppError(refused).appError.code).toBe('service_unavailable');
  });

  it('a deadlock or serialisation failure (40P01, 40001, Prisma P2034) is a conflict to send again', () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const serialization = Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
    const prisma = new Prisma.PrismaClientKnownRequestError('Transaction failed due to a write conflict or a deadlock', {
      code: 'P2034',
      clientVersion: '7',
    });
    const raw = new Prisma.PrismaClientKnownRequestError('Raw query failed. Code: `40P01`. Message: `deadlock detected`', {
      code: 'P2010',
      clientVersion: '7',
    });
    for (const err of [new Error('wrapped', { cause: deadlock }), serialization, prisma, raw]) {
      expect(toAppError(err).appError).toMatchObject({ code: 'conflict', status: 409, extra: { shouldRetry: true } });
    }
  });

  it('anything else unexpected is internal', () => {
    expect(toAppError(new Error('boom'))).toMatchObject({ appError: { code: 'internal' }, unexpected: true });
    const unique = new Prisma.PrismaClientKnownRequestError('Unique constraint failed', { code: 'P2002', clientVersion: '7' });
    expect(toAppError(unique).appError.code).toBe('internal');
  });
});
