import { z } from 'zod';
import { DateOrDateTime, FoodCategory, IsoDate, Sector, Timestamp, Uuid } from './common.js';
import { DEFAULT_SERVICE_LEVEL, MAX_SERVICE_LEVEL, MIN_SERVICE_LEVEL } from './constants.js';
import { Envelope } from './envelope.js';

/** `GET /api/v1/analytics`. Dates are read in the establishment's time zone; default: the last 30 days. */
export const AnalyticsQuery = z
  .strictObject({
    from: DateOrDateTime.optional(),
    to: DateOrDateTime.optional(),
    group_by: z.enum(['day', 'week', 'month']).default('day'),
    food_category: FoodCategory.optional(),
    causa_id: Uuid.optional(),
    destino_id: Uuid.optional(),
  })
  .meta({ id: 'AnalyticsQuery' });
export type AnalyticsQuery = z.input<typeof AnalyticsQuery>;

/** Waste metrics. Periods: day `YYYY-MM-DD`, week `YYYY-Www` (ISO week), month `YYYY-MM`. */
export const AnalyticsResult = z
  .object({
    total_kg: z.number(),
    total_records: z.number().int(),
    by_category: z.record(z.string(), z.number()).describe('kg per food category'),
    by_destino: z.record(z.string(), z.number()).describe('kg per destination id'),
    by_cause: z.record(z.string(), z.number()).describe('kg per cause id (`none` when not given)'),
    by_stage: z.record(z.string(), z.number()).describe('kg per waste stage (`none` when not given)'),
    recovery_rate: z.number().nullable().describe('share of kg sent to recovery destinations, 0..1; null without data'),
    trend: z.array(z.object({ period: z.string(), total_kg: z.number() })),
    from: IsoDate.or(Timestamp),
    to: IsoDate.or(Timestamp),
    group_by: z.enum(['day', 'week', 'month']),
  })
  .meta({ id: 'AnalyticsResult' });
export type AnalyticsResult = z.infer<typeof AnalyticsResult>;
export const AnalyticsResponse = Envelope(AnalyticsResult);

export const BenchmarkingQuery = z.strictObject({ sector: Sector.optional() }).meta({ id: 'BenchmarkingQuery' });
export type BenchmarkingQuery = z.input<typeof BenchmarkingQuery>;

/**
 * Anonymous sector comparison over the last 90 days: each establishment's kg per day over the days
 * it covers within them (`days_covered`, from its first record's day to today). With fewer than 5
 * establishments in the sample the sector figures are null and `note` says why.
 */
export const BenchmarkResult = z
  .object({
    your_avg_kg_per_day: z.number(),
    sector_avg_kg_per_day: z.number().nullable(),
    percentile: z.number().nullable(),
    sector: Sector,
    sample_size: z.number().int(),
    window_days: z.number().int(),
    days_covered: z
      .number()
      .int()
      .describe(
        "the days your figure is averaged over: from the local day of your first record within the window to today, both included (at most `window_days`; 0 without records). Each establishment of the sector is averaged over its own days the same way, so a newcomer's kg per day is not diluted by days before it recorded anything.",
      ),
    note: z.string().nullable(),
  })
  .meta({ id: 'BenchmarkResult' });
export type BenchmarkResult = z.infer<typeof BenchmarkResult>;
export const BenchmarkingResponse = Envelope(BenchmarkResult);

export const PredictQuery = z
  .strictObject({
    horizon: z.coerce.number().int().min(1).max(28).default(7),
    food_category: FoodCategory.optional(),
    type: z.enum(['waste', 'demand']).default('waste'),
    product_id: Uuid.optional().describe('`type=demand`: the forecast of this product only'),
  })
  .meta({ id: 'PredictQuery' });
export type PredictQuery = z.input<typeof PredictQuery>;

/** `type=waste`: the establishment's daily waste in kg. */
export const Prediction = z
  .object({
    type: z.literal('waste'),
    food_category: FoodCategory.nullable(),
    method: z.string(),
    history_days: z.number().int(),
    backtest: z.object({ metric: z.enum(['mae', 'mape']), value: z.number().nullable(), days: z.number().int() }),
    points: z.array(z.object({ date: IsoDate, predicted_kg: z.number(), lower: z.number(), upper: z.number() })),
    generated_at: Timestamp,
  })
  .meta({ id: 'Prediction' });
export type Prediction = z.infer<typeof Prediction>;

export const DemandPoint = z
  .object({
    date: IsoDate,
    expected: z.number().describe("expected sales, in the product's `unit`"),
    lower: z
      .number()
      .describe(
        "95 % interval: the 2.5 % and 97.5 % quantiles of the day-ahead errors of the last 8 weeks added to `expected` (14 errors at least; before that, the model's own error scale)",
      ),
    upper: z.number(),
    advised: z
      .number()
      .describe(
        'suggested quantity to prepare: the `advice.quantile` quantile of the forecast (whole units when counted); 0 on a closed day',
      ),
    closed: z
      .boolean()
      .describe(
        'the establishment is closed that day (its opening calendar: a weekly closed day or a closure): every figure is 0, nothing to prepare',
      ),
    after_closure: z
      .boolean()
      .describe(
        'one of the first 3 open days after a closure of the opening calendar: demand often differs from before it, so the forecast is less certain',
      ),
  })
  .meta({ id: 'DemandPoint' });
export type DemandPoint = z.infer<typeof DemandPoint>;

export const ProductionSettings = z
  .object({
    service_level: z
      .number()
      .describe(
        `the share of days the advised quantity aims to cover for a product without a price and a unit cost, before the adjustment for its recorded waste (${MIN_SERVICE_LEVEL}–${MAX_SERVICE_LEVEL}; ${DEFAULT_SERVICE_LEVEL} until set)`,
      ),
    is_default: z.boolean().describe('true while the establishment has not set its own service level'),
    updated_at: Timestamp.nullable().describe('when it was last set; null while it is the default'),
  })
  .meta({ id: 'ProductionSettings' });
export type ProductionSettings = z.infer<typeof ProductionSettings>;
export const ProductionSettingsResponse = Envelope(ProductionSettings);

export const UpdateProductionSettingsInput = z
  .strictObject({
    service_level: z
      .number()
      .min(MIN_SERVICE_LEVEL, `at least ${MIN_SERVICE_LEVEL}: an advice meant to run short on most days is no advice`)
      .max(MAX_SERVICE_LEVEL, `at most ${MAX_SERVICE_LEVEL}: covering every day means preparing for the rarest`)
      .nullable()
      .describe(`the share of days to cover, rounded to hundredths; null goes back to the default (${DEFAULT_SERVICE_LEVEL})`),
  })
  .meta({ id: 'UpdateProductionSettingsInput' });
export type UpdateProductionSettingsInput = z.input<typeof UpdateProductionSettingsInput>;

/**
 * How the advice was chosen and what it would have done over the last 4 weeks: each day's advice
 * made the evening before from the sales known then, against that day's sales and the product's
 * recorded waste (waste records that name the product by `product_id`, or else whose `product_name` is its name).
 */
export const DemandAdvice = z
  .object({
    quantile: z
      .number()
      .min(0)
      .max(1)
      .describe(
        "the quantile of the forecast advised (the share of days the quantity is meant to cover): the critical ratio (price − unit_cost) / (price − salvage_value), 0.05..0.99, when the product has a price above its unit cost; else the establishment's service level (`GET /predict/settings`, 0.85 by default) when the product's waste is unknown, or that level adjusted by the share of it recorded as waste, from 0.10 above (none wasted) to 0.10 below (30 % or more)",
      ),
    waste_share: z
      .number()
      .nullable()
      .describe('share of what was made that was wasted over the last 4 weeks (waste / (sales + waste)); null when it cannot be measured'),
    reason: z.string().describe('why this quantile, in words: the prices weighed, or the waste recorded'),
    prices: z
      .object({
        leftover_cost: z.number().describe('what one unit left over loses: unit_cost − salvage_value, in euros'),
        missed_sale_cost: z.number().describe('what one sale missed loses: price − unit_cost, in euros'),
      })
      .nullable()
      .describe("the product's prices the quantile was set from (the critical ratio); null when it was set from its waste"),
    last_4_weeks: z.object({
      days: z
        .number()
        .int()
        .describe(
          'days among the last 28 on which the establishment sold anything (a day the product sold none counts as a demand of 0), or the product was wasted',
        ),
      sold: z.number(),
      waste_kg: z.number().describe('waste recorded'),
      advised_waste_kg: z.number().nullable().describe('what would have been left over had the advice been prepared'),
      avoided_kg: z
        .number()
        .nullable()
        .describe('waste_kg − advised_waste_kg (negative: the advice would have wasted more); null without recorded waste to compare with'),
      avoided_pct: z.number().nullable().describe('avoided_kg as a percentage of waste_kg'),
      short_days: z.number().int().describe('days the advice would have been less than the sales'),
      short_quantity: z.number().describe('sales the advice would not have covered, in `unit`'),
      left_over: z.number().describe('what the advice would have left over, in `unit` (advised − sold, on the days it was more)'),
      cost: z
        .number()
        .nullable()
        .describe(
          'what those leftovers and missed sales would have cost, in euros (left_over × leftover_cost + short_quantity × missed_sale_cost); null without prices',
        ),
      seven_day_average: z
        .object({
          left_over: z.number(),
          short_days: z.number().int(),
          short_quantity: z.number(),
          cost: z.number().nullable(),
        })
        .describe(
          'the same days had the average of the last 7 open days known each evening been prepared (rounded up, as the advice is): the simple rule the advice is measured against, in the same units and euros',
        ),
    }),
  })
  .meta({ id: 'DemandAdvice' });
export type DemandAdvice = z.infer<typeof DemandAdvice>;

export const ProductDemand = z
  .object({
    product_id: Uuid,
    product_name: z.string(),
    food_category: FoodCategory,
    unit: z.enum(['unit', 'kg']).describe('what the figures count: units, or kg for products sold by weight'),
    unit_weight_kg: z.number().nullable(),
    model: z
      .enum(['holt-winters', 'combined', 'tsb', 'recent-mean'])
      .describe(
        "the model that forecasts this product, chosen each evening by its day-ahead error over the last 56 open days: `holt-winters` (weekly season), `combined` (the mean of Holt-Winters and the same weekday's average over 4 weeks), `tsb` (for intermittent sellers), or `recent-mean` (the last 7 days' mean, under 14 days of history); `method` says it in words, with each candidate's error",
      ),
    method: z.string(),
    history_days: z.number().int(),
    notes: z
      .array(
        z.object({
          code: z.enum([
            'short_history',
            'measure_left_out',
            'no_unit_weight',
            'no_waste',
            'today_included',
            'today_excluded',
            'after_closure',
          ]),
          message: z.string(),
          closes_at: z
            .string()
            .regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/)
            .nullable()
            .optional()
            .describe(
              "only on `today_included` and `today_excluded`: when the establishment's day of sales ends (HH:MM, local), `24:00` when its sales run to midnight; null when nothing tells it",
            ),
          reason: z
            .enum(['day_over', 'day_not_over', 'not_arrived', 'until_midnight', 'unknown'])
            .optional()
            .describe(
              "only on `today_included` and `today_excluded`: `day_over` (the day ended at `closes_at`: today's sales are in), `day_not_over` (it ends at `closes_at`), `not_arrived` (no sale of today has arrived yet), `until_midnight` (its sales run to midnight: the forecast is made from the days before), `unknown` (nothing tells when its day ends)",
            ),
          basis: z
            .enum(['shifts', 'sales', 'none'])
            .optional()
            .describe(
              'only on `today_included` and `today_excluded`: what `closes_at` was learnt from: `shifts` (the end of its last shift), `sales` (a shift past midnight or none: the later of the end of its shifts that end the same day and a minute after its latest sale of the last 28 days), `none` (neither)',
            ),
        }),
      )
      .describe(
        'why the forecast is simpler or the advice incomplete, when it is: `short_history` (under 14 days: a mean without the weekly pattern), `measure_left_out` (sales in the other measure than `unit`, and no unit weight to convert them), `no_unit_weight` (waste in kg cannot be set against sales in units), `no_waste` (no waste recorded for the product in the last 4 weeks: nothing to compare the advice with), `today_included` (the establishment day is over — the end of its last shift, or, with a shift past midnight or none, a minute after its latest sale of the last 28 days — and the sales of today are part of the forecast), `today_excluded` (they are not, and why: the day is not over, the sales of today have not arrived, its sales run to midnight, or nothing tells when its day ends), `after_closure` (some of the days forecast follow a closure: see `points[].after_closure`). Days the opening calendar marks closed are left out of the fit and of these figures',
      ),
    backtest: z
      .object({
        metric: z.literal('mae'),
        days: z
          .number()
          .int()
          .describe('open days of the last 8 weeks each forecast the evening before, as the advice is (a rolling origin); 0 when none'),
        value: z.number().nullable().describe("the model's mean absolute error over those days; null when there are none"),
        seasonal_naive: z.number().nullable().describe('the same for "same day last week" made the same evening, the baseline to beat'),
        seven_day_average: z.number().nullable().describe('the same for the average of the last 7 days known that evening'),
        mase: z
          .number()
          .nullable()
          .describe(
            '`value` over the mean absolute error of "same day last week" within the history before those days (under 1: better than that baseline); null when it cannot be scaled',
          ),
        coverage: z
          .number()
          .nullable()
          .describe(
            'share of those days whose sales fell inside the 95 % interval as it would have been served that evening; null before 14 past errors',
          ),
      })
      .describe('how the forecast did at the horizon the advice is used: each of the last open days forecast the evening before'),
    points: z.array(DemandPoint),
    advice: DemandAdvice,
  })
  .meta({ id: 'ProductDemand' });
export type ProductDemand = z.infer<typeof ProductDemand>;

/** `type=demand`: per product sold (from `sales.recorded`), expected sales per day and how much to prepare. */
export const DemandPrediction = z
  .object({
    type: z.literal('demand'),
    product_id: Uuid.nullable(),
    food_category: FoodCategory.nullable(),
    products: z
      .array(ProductDemand)
      .describe(
        'products with sales in the last year, best sellers first (units sold, kg converted by the unit weight); at most 200 (`product_id` reaches the others)',
      ),
    generated_at: Timestamp,
  })
  .meta({ id: 'DemandPrediction' });
export type DemandPrediction = z.infer<typeof DemandPrediction>;

export const PredictResult = z.discriminatedUnion('type', [Prediction, DemandPrediction]);
export type PredictResult = z.infer<typeof PredictResult>;
export const PredictResponse = Envelope(PredictResult);
