import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { addDays, type ProductDemand } from '@merma/schema';
import { Piscina } from 'piscina';
import { type DayRowsText, firstDayOf } from './day-rows.js';
import type { ProductRow, productDemand } from './demand.js';

/**
 * The demand forecast's fits, off the event loop: `productDemand` is pure CPU (63 ms for 16
 * products with a year of sales, 796 ms for 200, measured on our 2-core machines), during which a
 * process serving every tenant would answer nobody. `predictDemand` still reads its inputs on the
 * request's loop (that is I/O; each product's days as one text), then hands the products to a pool
 * of worker threads (forecast-worker.ts, piscina) and awaits.
 *
 * - **Threads**: `FORECAST_THREADS`, by default one fewer than the machine's cores (at least one):
 *   the event loop keeps a core of its own for the requests, which is the point. 0 computes on the
 *   event loop (no pool: as before).
 * - **Batches**: `BATCH_PRODUCTS` products per task; 200 products make 13 tasks that keep every
 *   thread busy. A task's inputs are copied to its thread by structured clone on the event loop:
 *   each product's year of day rows crosses as the one text the database wrote (day-rows.ts), which
 *   the thread turns into rows, and the tasks are sent one per turn of the loop (`setImmediate`
 *   between them), so that the loop answers other requests in between. (As 365 row objects a
 *   product, 200 products' copies sent in one go held the loop 8–11 ms, on top of the rows' parsing
 *   and grouping in the same stretch: 28–48 ms in all, bench/README.md.)
 * - **Nothing runs inline** when a pool exists, not even one product: a product's fit costs 3–5 ms
 *   of CPU, a round trip to an idle thread ~0.3 ms of loop time and ~1 ms of latency
 *   (bench/README.md); the loop is what is scarce, not the millisecond.
 * - `at.closedOn` is a function and cannot cross a thread: the days it closes are sent instead, for
 *   the span the forecast can ask about (from the batch's first sale to the horizon's last day),
 *   and the worker rebuilds the function from them; asked about a day outside that span it throws
 *   rather than answer differently. Everything else in `at` is sent as it is, whatever fields it
 *   gains (a function among them fails loudly: it cannot be cloned).
 */
export const BATCH_PRODUCTS = 16;

/** `productDemand`'s `at`: what is the same for every product of an answer. */
export type DemandAt = Parameters<typeof productDemand>[3];
/**
 * One product's inputs: `productDemand`'s, with its day rows as the text the database wrote
 * (day-rows.ts), which the thread turns into rows: a string is copied to a thread at once, 365 row
 * objects one by one.
 */
export type DemandInput = { product: ProductRow; days: DayRowsText; wasteKg: Map<string, number> };

/** What crosses to a thread: `at` without its function, and the closed days of `span`. */
export type DemandTask = {
  products: DemandInput[];
  at: Omit<DemandAt, 'closedOn'>;
  closed: { from: string; to: string; days: string[] } | null;
};

export type ForecastPool = {
  /** The threads the pool runs at most. */
  readonly threads: number;
  /** `productDemand` of each input, in order. */
  demand(inputs: readonly DemandInput[], at: DemandAt): Promise<ProductDemand[]>;
  /** Waits for the tasks already sent, then ends the threads. */
  close(): Promise<void>;
};

/**
 * The worker's file: the TypeScript source beside this file when running from src (tsx, vitest;
 * its thread loads it through tsx, with the source condition the workspace packages are read
 * with), else the bundle's own entry (tsup.config.ts emits `dist/forecast-worker.js` beside the
 * chunk this code is in).
 */
function workerFile(): { filename: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  if (!fromSource) return { filename: new URL('./forecast-worker.js', import.meta.url).href, execArgv: [] };
  return {
    filename: new URL('./forecast-worker.ts', import.meta.url).href,
    execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href, '--conditions=@merma/source'],
  };
}

/** The pool of `threads` threads; none (undefined) for 0: `predictDemand` then fits on the loop. */
export function createForecastPool(options: { threads: number; idleTimeoutMs?: number }): ForecastPool | undefined {
  const { threads } = options;
  if (threads === 0) return undefined;
  // Threads start on the first forecast and end after an idle while: a process that is never asked
  // for one keeps none, and a burst of dashboard visits finds them warm.
  let pool: Piscina | undefined;
  const started = () => {
    pool ??= new Piscina({
      ...workerFile(),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: options.idleTimeoutMs ?? 5 * 60_000,
    });
    return pool;
  };
  return {
    threads,
    async demand(inputs, at) {
      const tasks: Promise<ProductDemand[]>[] = [];
      for (let i = 0; i < inputs.length; i += BATCH_PRODUCTS) {
        // The loop's other callbacks between two tasks' copies: sent in one go, 200 products' copies
        // added up to one stretch (bench/README.md).
        if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        const task = demandTask(inputs.slice(i, i + BATCH_PRODUCTS), at);
        const running = started().run(task, { name: 'demandBatch' }) as Promise<ProductDemand[]>;
        // Awaited all together below; a failure while later tasks are still being sent is not unhandled.
        running.catch(() => {});
        tasks.push(running);
      }
      return (await Promise.all(tasks)).flat();
    },
    async close() {
      await pool?.close();
    },
  };
}

/** The task for `inputs`: `at.closedOn` replaced by the days it closes over the span asked about. */
export function demandTask(inputs: readonly DemandInput[], at: DemandAt): DemandTask {
  const { closedOn, ...rest } = at;
  let closed: DemandTask['closed'] = null;
  if (closedOn) {
    // The series of a product runs from its first sale; the points to the horizon's last day.
    const firsts = inputs.map((i) => firstDayOf(i.days) ?? at.today).sort();
    const from = firsts[0] ?? at.today;
    const to = addDays(at.today, at.horizon + 1);
    const days: string[] = [];
    for (let day = from; day <= to; day = addDays(day, 1)) if (closedOn(day)) days.push(day);
    closed = { from, to, days };
  }
  return { products: [...inputs], at: rest, closed };
}

/** `at` as the task carried it, with `closedOn` rebuilt from the closed days sent. */
export function atOfTask(task: DemandTask): DemandAt {
  const { closed } = task;
  if (!closed) return task.at;
  const days = new Set(closed.days);
  const closedOn = (day: string) => {
    if (day < closed.from || day > closed.to) {
      throw new Error(`closedOn(${day}): outside the days sent to the forecast's thread (${closed.from} to ${closed.to})`);
    }
    return days.has(day);
  };
  return { ...task.at, closedOn };
}
