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
