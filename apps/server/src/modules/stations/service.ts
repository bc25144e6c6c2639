import { randomInt, randomUUID } from 'node:crypto';
import type { Mode } from '@merma/schema';
import {
  normalizePairingCode,
  PAIRING_CODE_ALPHABET,
  PAIRING_CODE_LENGTH,
  PAIRING_TTL_MINUTES,
  type RedeemedPairing,
  STATION_TOKEN_PATTERN,
  type StartedPairing,
  type StationDevice,
  type StationIdentity,
} from '@merma/schema/dashboard';
import { randomToken } from '../../auth/keys.js';
import { hashToken as sha256 } from '../../auth/tokens.js';
import { isoSql } from '../../calendar.js';
import type { Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { type Caller, findStationCaller } from '../tenancy/callers.js';

/**
 * Kitchen stations' devices (docs/decisions/0007-the-kitchen-station.md). An owner or admin starts
 * a pairing from the dashboard: a device row with a one-time code (its SHA-256 kept) valid for
 * PAIRING_TTL_MINUTES. The tablet redeems the code once for a token (`stn_live_…`/`stn_test_…`,
 * 190 random bits, its SHA-256 kept): from then on the token is the device, for one establishment
 * and mode, until it is revoked. Codes and tokens are looked up by their hash through unique
 * indexes, as API keys are (auth/keys.ts).
 */

/** A code of PAIRING_CODE_LENGTH characters drawn uniformly from Crockford's base 32, as `XXXX-XXXX`. */
function newPairingCode(): { shown: string; normalized: string } {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)];
  return { shown: `${code.slice(0, 4)}-${code.slice(4)}`, normalized: code };
}

type Row = {
  id: string;
  name: string;
  livemode: boolean;
  created_at: string;
  pairing_expires_at: string | null;
  paired_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  token_hash: string | null;
  creator_id: string | null;
  creator_email: string | null;
  creator_name: string | null;
};

// (to_char of a NULL time is NULL.)
const COLUMNS = `d.id::text, d.name, d.livemode, ${isoSql('d.created_at')} AS created_at,
  ${isoSql('d.pairing_expires_at')} AS pairing_expires_at, ${isoSql('d.paired_at')} AS paired_at,
  ${isoSql('d.last_used_at')} AS last_used_at, ${isoSql('d.revoked_at')} AS revoked_at,
  d.token_hash, u.id::text AS creator_id, u.email AS creator_email, u.name AS creator_name`;
const FROM = 'station_devices d LEFT JOIN users u ON u.id = d.created_by';

function toDevice(row: Row, now: Date): StationDevice {
  const status = row.revoked_at
    ? 'revoked'
    : row.token_hash
      ? 'active'
      : row.pairing_expires_at && Date.parse(row.pairing_expires_at) > now.getTime()
        ? 'pairing'
        : 'expired';
  return {
    id: row.id,
    name: row.name,
    mode: row.livemode ? 'live' : 'test',
    status,
    created_by: row.creator_id ? { id: row.creator_id, email: row.creator_email ?? '', name: row.creator_name ?? '' } : null,
    created_at: row.created_at,
    pairing_expires_at: status === 'pairing' || status === 'expired' ? row.pairing_expires_at : null,
    paired_at: row.paired_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}

/** A new device of the scope, waiting for its code; the code is in this answer only. */
export async function startPairing(
  sql: Sql,
  scope: Pick<Tenant, 'establishmentId' | 'livemode'>,
  input: { name: string; createdBy: string; now: Date },
): Promise<StartedPairing> {
  const code = newPairingCode();
  const expires = new Date(input.now.getTime() + PAIRING_TTL_MINUTES * 60_000);
  const id = randomUUID();
  await sql.query(
    `INSERT INTO station_devices (id, establishment_id, livemode, name, pairing_code_hash, pairing_expires_at, created_by, created_at)
     VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6::timestamptz, $7::uuid, $8::timestamptz)`,
    [
      id,
      scope.establishmentId,
      scope.livemode,
      input.name,
      sha256(code.normalized),
      expires.toISOString(),
      input.createdBy,
      input.now.toISOString(),
    ],
  );
  const device = await findDevice(sql, scope, id, input.now);
  return { device, code: code.shown, expires_at: expires.toISOString() };
}

async function findDevice(sql: Sql, scope: Pick<Tenant, 'establishmentId' | 'livemode'>, id: string, now: Date): Promise<StationDevice> {
  const { rows } = await sql.query<Row>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE d.id = $1::uuid AND d.establishment_id = $2::uuid AND d.livemode = $3`,
    [id, scope.establishmentId, scope.livemode],
  );
  const row = rows[0];
  if (!row) throw new AppError('not_found', `No station device ${id} in this establishment`);
  return toDevice(row, now);
}

/** The scope's devices, newest first (revoked and expired ones included, with their status). */
export async function listDevices(sql: Sql, scope: Pick<Tenant, 'establishmentId' | 'livemode'>, now: Date): Promise<StationDevice[]> {
  const { rows } = await sql.query<Row>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE d.establishment_id = $1::uuid AND d.livemode = $2 ORDER BY d.created_at DESC, d.id`,
    [scope.establishmentId, scope.livemode],
  );
  return rows.map((r) => toDevice(r, now));
}

/**
 * Revokes a device at once: its token (or its code, if it was still waiting) stops working on the
 * next request, since every station request looks its token up (`stationOf`). Revoking twice
 * answers the device as it is.
 */
export async function revokeDevice(
  sql: Sql,
  scope: Pick<Tenant, 'establishmentId' | 'livemode'>,
  input: { id: string; now: Date },
): Promise<StationDevice> {
  await sql.query(
    `UPDATE station_devices SET revoked_at = $4::timestamptz, pairing_code_hash = NULL
     WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3 AND revoked_at IS NULL`,
    [input.id, scope.establishmentId, scope.livemode, input.now.toISOString()],
  );
  return findDevice(sql, scope, input.id, input.now);
}

type Identity = { id: string; name: string; livemode: boolean; establishment_id: string; establishment_name: string; timezone: string };

const toIdentity = (r: Identity): StationIdentity => ({
  device: { id: r.id, name: r.name },
  establishment: { id: r.establishment_id, name: r.establishment_name, timezone: r.timezone },
  mode: (r.livemode ? 'live' : 'test') satisfies Mode,
});

/**
 * The station's side: a code for a token, once, before it expires. Every refusal says the same
 * (unknown, used, expired or revoked), so a guess learns nothing.
 */
export async function redeemPairing(sql: Sql, input: { code: string; now: Date }): Promise<RedeemedPairing> {
  const code = normalizePairingCode(input.code);
  const refused = new AppError('unauthorized', 'This pairing code is not valid: ask for a new one on the dashboard (Stations)');
  if (!code) throw refused;
  const { rows } = await sql.query<{ livemode: boolean }>(
    `SELECT livemode FROM station_devices WHERE pairing_code_hash = $1 AND revoked_at IS NULL AND pairing_expires_at > $2::timestamptz`,
    [sha256(code), input.now.toISOString()],
  );
  const found = rows[0];
  if (!found) throw refused;
  const token = randomToken(`stn_${found.livemode ? 'live' : 'test'}_`);
  // One statement: the code is cleared as the token is set, so a code races itself at most once.
  const paired = await sql.query<Identity>(
    `WITH paired AS (
       UPDATE station_devices SET token_hash = $3, pairing_code_hash = NULL, pairing_expires_at = NULL, paired_at = $2::timestamptz
       WHERE pairing_code_hash = $1 AND revoked_at IS NULL AND pairing_expires_at > $2::timestamptz
       RETURNING id, name, livemode, establishment_id
     )
     SELECT d.id::text, d.name, d.livemode, e.id::text AS establishment_id, e.name AS establishment_name, e.timezone
     FROM paired d JOIN establishments e ON e.id = d.establishment_id`,
    [sha256(code), input.now.toISOString(), sha256(token)],
  );
  const row = paired.rows[0];
  if (!row) throw refused;
  return { ...toIdentity(row), token };
}

/** A station: what it is, and the caller it is (its establishment and mode; modules/tenancy/callers.ts). */
export type Station = { identity: StationIdentity; tenant: Tenant; caller: Caller };

/** A station request's device, by its token; null when the token is unknown or revoked. */
export async function stationOf(sql: Sql, token: string): Promise<Station | null> {
  if (!STATION_TOKEN_PATTERN.test(token)) return null;
  const found = await findStationCaller(sql, sha256(token));
  return found ? { identity: toIdentity(found.device), tenant: found.caller.tenant, caller: found.caller } : null;
}
