import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import type {
  AnalyticsQuery,
  AnalyticsResult,
  BenchmarkingQuery,
  BenchmarkResult,
  DemandPrediction,
  GeneratePreventionPlanQuery,
  PlanMeasure,
  PlanMeasuresQuery,
  Prediction,
  PredictQuery,
  PreventionPlan,
  PreventionPlanQuery,
  ProductionSettings,
  TrainingSession,
  TrainingSessionsQuery,
  UpdateProductionSettingsInput,
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

/** The query of `predict.demand`: the horizon (1..28 days), and optionally one product or a food category. */
export type DemandQuery = Omit<PredictQuery, 'type'>;

/**
 * GET /api/v1/predict: daily forecasts with intervals — of waste (`get`, kg per day) or of demand
 * per product with the quantity to prepare (`demand`, from the sales sent with `inbound.sales`).
 */
export class Predict {
  /** The production advice's settings: the service level it aims at for products without prices. */
  readonly settings: PredictSettings;

  constructor(private readonly core: HttpCore) {
    this.settings = new PredictSettings(core);
  }
  get(query?: PredictQuery & { type?: 'waste' | undefined }, options?: RequestOptions): APIPromise<Prediction>;
  get(query: PredictQuery & { type: 'demand' }, options?: RequestOptions): APIPromise<DemandPrediction>;
  get(query: PredictQuery = {}, options?: RequestOptions): APIPromise<Prediction | DemandPrediction> {
    return this.core.request({ method: 'GET', path: '/predict', query }, options);
  }

  /**
   * Expected sales per day and product (units, or kg for products sold by weight) with a 95 %
   * interval, the advised quantity to prepare (`points[].advised`; tomorrow first) and what that
   * advice would have saved over the last 4 weeks (`advice.last_4_weeks`).
   */
  demand(query: DemandQuery = {}, options?: RequestOptions): APIPromise<DemandPrediction> {
    return this.core.request({ method: 'GET', path: '/predict', query: { ...query, type: 'demand' } }, options);
  }
}

/**
 * GET and PUT /api/v1/predict/settings: the share of days the advised quantity aims to cover for a
 * product without a price and a unit cost (its `service_level`, 0.50–0.99; 0.85 until set), before
 * the adjustment for the waste it is known to leave. Per establishment and mode: a test key's
 * setting leaves the live advice as it is.
 */
export class PredictSettings {
  constructor(private readonly core: HttpCore) {}

  retrieve(options?: RequestOptions): APIPromise<ProductionSettings> {
    return this.core.request({ method: 'GET', path: '/predict/settings' }, options);
  }

  /** Sets the service level (hundredths; `null` goes back to the default 0.85); answers the settings. */
  update(input: UpdateProductionSettingsInput, options?: RequestOptions): APIPromise<ProductionSettings> {
    return this.core.request({ method: 'PUT', path: '/predict/settings', body: input }, options);
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

  /**
   * The plan's measures as they are followed up: each measure the newest plan proposes, then any
   * other with a follow-up, with its owner, due date, status (`planned` until someone says
   * otherwise) and note; its words in `lang` (Spanish by default).
   */
  measures(query: PlanMeasuresQuery = {}, options?: RequestOptions): APIPromise<PlanMeasure[]> {
    return this.core.request({ method: 'GET', path: '/prevention-plan/measures', query }, options);
  }

  /** The staff training sessions held in a calendar year (the current one by default), oldest first. */
  trainingSessions(query: TrainingSessionsQuery = {}, options?: RequestOptions): APIPromise<TrainingSession[]> {
    return this.core.request({ method: 'GET', path: '/training-sessions', query }, options);
  }
}
