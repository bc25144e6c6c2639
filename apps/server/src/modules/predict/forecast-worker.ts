import type { ProductDemand } from '@merma/schema';
import { dayRowsOf } from './day-rows.js';
import { productDemand } from './demand.js';
import { atOfTask, type DemandTask } from './pool.js';

/**
 * The forecast pool's thread (pool.ts): a batch of products' `productDemand`, called as the event
 * loop would call it, with each product's day rows read from their text (day-rows.ts) and
 * `at.closedOn` rebuilt from the closed days the task carries. tsup emits this file as its own
 * entry (`dist/forecast-worker.js`).
 */
export function demandBatch(task: DemandTask): ProductDemand[] {
  const at = atOfTask(task);
  return task.products.map((p) => productDemand(p.product, dayRowsOf(p.product.id, p.days), p.wasteKg, at));
}
