// Bounded storage for `pnpm bench`: what the runs above left in the tables the retention job
// (apps/server/src/modules/retention/purge.ts) keeps only for a while, before and after that job
// runs as it will 31 days from now (events, deliveries and attempts older than 30 days whose
// deliveries are over; idempotency keys older than 24 hours; inbound event ids past their window).
import { tsImport } from 'tsx/esm/api';

// The job's own code, from its sources (they import each other as `.js`, which tsx resolves; this
// process's other modules load without it).
const { purgeExpired } = await tsImport('../apps/server/src/modules/retention/purge.ts', import.meta.url);

const TABLES = ['events', 'webhook_deliveries', 'webhook_delivery_attempts', 'idempotency_keys', 'inbound_events'];

async function sizes(client) {
  const out = {};
  for (const table of TABLES) {
    const { rows } = await client.query(
      `SELECT (SELECT count(*) FROM ${table})::int AS rows, pg_total_relation_size($1::regclass)::bigint AS bytes`,
      [table],
    );
    out[table] = { rows: rows[0].rows, bytes: Number(rows[0].bytes) };
  }
  return out;
}

/** Rows and on-disk size per table before the purge, after it, and after a VACUUM makes the space reusable. */
export async function measureRetention({ pool, client }) {
  const before = await sizes(client);
  const start = performance.now();
  const later = new Date(Date.now() + 31 * 86_400_000);
  const report = await purgeExpired(
    { pool, clock: () => later },
    { eventDays: 30, inboundDedupeDays: 30, salesDays: 400, budgetMs: 600_000 },
  );
  const seconds = (performance.now() - start) / 1000;
  await client.query(`VACUUM ${TABLES.join(', ')}`);
  const after = await sizes(client);
  return { before, after, report, seconds };
}

export function printRetention({ before, after, seconds }) {
  const mb = (b) => `${(b / 2 ** 20).toFixed(1)} MB`;
  console.log(`\nretention (the purge job as it runs 31 days from now, ${seconds.toFixed(1)} s; sizes after VACUUM):`);
  console.log(
    `${'table'.padEnd(28)}${'rows before'.padStart(13)}${'rows after'.padStart(12)}${'size before'.padStart(13)}${'size after'.padStart(12)}`,
  );
  for (const table of Object.keys(before)) {
    console.log(
      `${table.padEnd(28)}${String(before[table].rows).padStart(13)}${String(after[table].rows).padStart(12)}` +
        `${mb(before[table].bytes).padStart(13)}${mb(after[table].bytes).padStart(12)}`,
    );
  }
  console.log('  (VACUUM leaves the space to new rows; the files shrink only with VACUUM FULL or pg_repack)');
}
