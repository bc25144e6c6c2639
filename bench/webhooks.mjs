// Webhook benchmarks: (1) what delivery costs POST /records — establishments with 3 active
// subscriptions against establishments with none, same server, same run. Delivery is asynchronous:
// the request only writes the outbox row (workers dispatch it afterwards), and no worker runs on the
// API server (WORKER_CONCURRENCY=0), so this is the request path's own cost; the worker replica is
// started afterwards and first drains what these requests left in the outbox. (2) fan-out throughput:
// 500 records (one batch) to an establishment with 10 subscriptions, timed until the receiver has
// all 5,000 deliveries.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FORWARDED } from './lib.mjs';

const SECRET = () => `whsec_${randomBytes(32).toString('base64')}`;

async function subscribe(client, establishmentId, url, count) {
  for (let i = 0; i < count; i++) {
    await client.query(
      `INSERT INTO webhook_subscriptions (id, establishment_id, livemode, url, events, secret) VALUES ($1, $2, false, $3, '{record.created}', $4)`,
      [randomUUID(), establishmentId, `${url}/hook/${i}`, SECRET()],
    );
  }
}

export async function measureWebhooks({ client, ourPort, receiverUrl, seeded, load, summary, auth, record, startWorkerReplica }) {
  const quiet = seeded.slice(0, 100);
  const subscribed = seeded.slice(100, 200);
  for (const t of subscribed) await subscribe(client, t.id, receiverUrl, 3);
  const scenario = (tenants) => ({
    url: `http://127.0.0.1:${ourPort}/api/v1/records`,
    method: 'POST',
    body: JSON.stringify(record(1)),
    connections: 16,
    headersFor: (n) => auth(tenants[n % tenants.length]),
  });
  await load({ ...scenario(subscribed), connections: 2 }).catch(() => {});
  const none = [];
  const three = [];
  for (let round = 0; round < 2; round++) {
    none.push(summary(await load(scenario(quiet))));
    three.push(summary(await load(scenario(subscribed))));
  }
  const best = (runs) => runs.reduce((a, b) => (b.p50 < a.p50 || (b.p50 === a.p50 && b.rps > a.rps) ? b : a));
  const post = { none: best(none), three: best(three) };

  // Start the worker replica. Everything the benchmarks above wrote waits in the outbox (no worker
  // ran): time how long the replica takes to dispatch that backlog and to deliver all of it, before
  // measuring the fan-out on an idle queue.
  const scalar = async (sql) => Number((await client.query(sql)).rows[0].n);
  const waiting = () => scalar(`SELECT count(*) AS n FROM events WHERE dispatched_at IS NULL`);
  const queued = () => scalar(`SELECT count(*) AS n FROM graphile_worker.jobs`);
  const backlog = { events: await waiting() };
  const drainStarted = performance.now();
  await startWorkerReplica();
  // Waits while the figure `left()` goes down; fails only when it stopped moving for two minutes (a
  // slow machine drains slowly, a stuck queue not at all), saying what the queue holds.
  const until = async (left, what) => {
    let last = Number.POSITIVE_INFINITY;
    let movedAt = performance.now();
    for (;;) {
      const now = await left();
      if (now === 0) return (performance.now() - drainStarted) / 1000;
      if (now < last) {
        last = now;
        movedAt = performance.now();
      } else if (performance.now() - movedAt > 120_000) {
        const { rows } = await client.query(
          `SELECT task_identifier, count(*)::int AS jobs, count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS locked,
                  max(attempts)::int AS attempts, min(run_at) AS first_run_at, max(run_at) AS last_run_at, max(last_error) AS an_error
           FROM graphile_worker.jobs GROUP BY 1`,
        );
        throw new Error(`the worker replica did not ${what}: ${now} left, none for two minutes; jobs: ${JSON.stringify(rows)}`);
      }
      await sleep(100);
    }
  };
  backlog.dispatchSeconds = await until(waiting, 'dispatch the outbox');
  backlog.deliveries = await scalar(`SELECT count(*) AS n FROM webhook_deliveries`);
  backlog.drainSeconds = await until(queued, 'deliver the backlog');
  const countNow = async () => (await (await fetch(`${receiverUrl}/count`)).json()).count;

  const target = seeded[0];
  await subscribe(client, target.id, receiverUrl, 10);
  const before = await countNow();
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${ourPort}/api/v1/records/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...FORWARDED, ...auth(target) },
    body: JSON.stringify({ records: Array.from({ length: 500 }, (_, i) => record(i)) }),
  });
  if (res.status !== 200) throw new Error(`batch answered ${res.status}`);
  const expected = 5_000;
  let delivered = 0;
  while (performance.now() - started < 180_000) {
    delivered = (await countNow()) - before;
    if (delivered >= expected) break;
    await sleep(50);
  }
  const seconds = (performance.now() - started) / 1000;
  return { post, backlog, fanout: { subscriptions: 10, records: 500, delivered, seconds, perSecond: delivered / seconds } };
}
