import {
  AnalyticsQuery,
  AnalyticsResponse,
  type AnalyticsResult,
  BenchmarkingQuery,
  BenchmarkingResponse,
  type BenchmarkResult,
  type Prediction,
  PredictQuery,
  PredictResponse,
  type PreventionPlan,
  PreventionPlanQuery,
  PreventionPlanResponse,
} from '@merma/schema';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { validate } from '../core/validate.js';

/** GET /api/v1/analytics: totals, breakdowns and the trend (10 calls per hour per key by default). */
export class Analytics {
  constructor(private readonly core: HttpCore) {}
  async get(query: AnalyticsQuery = {}, options?: RequestOptions): Promise<AnalyticsResult> {
    const q = validate(AnalyticsQuery, query);
    return (await this.core.request({ method: 'GET', path: '/analytics', query: q }, AnalyticsResponse, options)).data;
  }
}

/** GET /api/v1/benchmarking: anonymous comparison with the sector (Enterprise plans). */
export class Benchmarking {
  constructor(private readonly core: HttpCore) {}
  async get(query: BenchmarkingQuery = {}, options?: RequestOptions): Promise<BenchmarkResult> {
    const q = validate(BenchmarkingQuery, query);
    return (await this.core.request({ method: 'GET', path: '/benchmarking', query: q }, BenchmarkingResponse, options)).data;
  }
}

/** GET /api/v1/predict: daily waste forecast with intervals. */
export class Predict {
  constructor(private readonly core: HttpCore) {}
  async get(query: PredictQuery = {}, options?: RequestOptions): Promise<Prediction> {
    const q = validate(PredictQuery, query);
    return (await this.core.request({ method: 'GET', path: '/predict', query: q }, PredictResponse, options)).data;
  }
}

/** The food-waste prevention plan of Ley 1/2025 (art. 6), computed from your records. */
export class PreventionPlans {
  constructor(private readonly core: HttpCore) {}

  /** Computes a new plan from the last 12 months of records. */
  async generate(options?: RequestOptions): Promise<PreventionPlan> {
    return (await this.core.request({ method: 'POST', path: '/prevention-plan' }, PreventionPlanResponse, options)).data;
  }

  /** The latest plan; with `{ format: 'markdown' }` it also carries `markdown`, a printable document. */
  async get(query: PreventionPlanQuery = {}, options?: RequestOptions): Promise<PreventionPlan> {
    const q = validate(PreventionPlanQuery, query);
    return (await this.core.request({ method: 'GET', path: '/prevention-plan', query: q }, PreventionPlanResponse, options)).data;
  }
}
