import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import type {
  AnalyticsQuery,
  AnalyticsResult,
  BenchmarkingQuery,
  BenchmarkResult,
  GeneratePreventionPlanQuery,
  Prediction,
  PredictQuery,
  PreventionPlan,
  PreventionPlanQuery,
} from '../generated/api-types.js';

/** GET /api/v1/analytics: totals, breakdowns and the trend (10 calls per hour per key by default). */
export class Analytics {
  constructor(private readonly core: HttpCore) {}
  get(query: AnalyticsQuery = {}, options?: RequestOptions): APIPromise<AnalyticsResult> {
    return this.core.request({ method: 'GET', path: '/analytics', query }, options);
  }
}

/** GET /api/v1/benchmarking: anonymous comparison with the sector (Enterprise plans). */
export class Benchmarking {
  constructor(private readonly core: HttpCore) {}
  get(query: BenchmarkingQuery = {}, options?: RequestOptions): APIPromise<BenchmarkResult> {
    return this.core.request({ method: 'GET', path: '/benchmarking', query }, options);
  }
}

/** GET /api/v1/predict: daily waste forecast with intervals. */
export class Predict {
  constructor(private readonly core: HttpCore) {}
  get(query: PredictQuery = {}, options?: RequestOptions): APIPromise<Prediction> {
    return this.core.request({ method: 'GET', path: '/predict', query }, options);
  }
}

/** The food-waste prevention plan of Ley 1/2025 (art. 6), computed from your records. */
export class PreventionPlans {
  constructor(private readonly core: HttpCore) {}

  /**
   * Computes a new plan from the last 12 months of records. `{ lang: 'en' }` writes its labels,
   * measures and note in English (sent as `?lang=en`); Spanish by default.
   */
  generate(query: GeneratePreventionPlanQuery = {}, options?: RequestOptions): APIPromise<PreventionPlan> {
    return this.core.request({ method: 'POST', path: '/prevention-plan', query }, options);
  }

  /**
   * The latest plan; with `{ format: 'markdown' }` it also carries `markdown`, a printable document.
   * `{ lang: 'en' }` reads it in English (any stored plan reads in either language); Spanish by default.
   */
  get(query: PreventionPlanQuery = {}, options?: RequestOptions): APIPromise<PreventionPlan> {
    return this.core.request({ method: 'GET', path: '/prevention-plan', query }, options);
  }
}
