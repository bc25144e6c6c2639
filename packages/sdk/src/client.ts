import { keyMode, LIVE_KEY_PREFIX, TEST_KEY_PREFIX } from '@merma/schema';
import { MermaError } from './core/errors.js';
import { type ClientEvents, countOption, durationOption, type FetchOptions, HttpCore, type Listeners, waitCapOption } from './core/http.js';
import { isLogLevel, type Logger, type LogLevel, makeLogger } from './core/log.js';
import { Causas, Destinos, Establishments, Products } from './resources/catalog.js';
import { Analytics, Benchmarking, Predict, PreventionPlans } from './resources/insights.js';
import { OpeningCalendar } from './resources/opening-calendar.js';
import { Records } from './resources/records.js';
import { Sessions } from './resources/sessions.js';
import { Shifts } from './resources/shifts.js';
import { Inbound, Webhooks } from './resources/webhooks.js';

export type MermaOptions = {
  /** `svc_live_…` or `svc_test_…`. Default: the MERMA_API_KEY environment variable. */
  apiKey?: string | undefined;
  /** Default: MERMA_BASE_URL, else https://api.merma.app. */
  baseUrl?: string | undefined;
  /** Milliseconds before one attempt gives up. Default 30,000. */
  timeout?: number | undefined;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number | undefined;
  /**
   * Longest wait (ms) the client accepts when rate limited; beyond it RateLimitError is thrown.
   * Default 60,000; `Infinity` waits whatever the server asks.
   */
  maxRetryAfter?: number | undefined;
  /**
   * A fetch implementation (default: the global fetch). It is called as `fetch(request, init)`
   * with a `Request` (and, in `init`, the `fetchOptions` a Request cannot carry, e.g. `dispatcher`).
   */
  fetch?: typeof fetch | undefined;
  /**
   * Options for every `fetch` (e.g. `{ dispatcher }`, an undici proxy agent, on Node); a call's
   * own `fetchOptions` are applied over these.
   */
  fetchOptions?: FetchOptions | undefined;
  /** Extra headers sent with every request. */
  defaultHeaders?: Record<string, string> | undefined;
  /**
   * API keys give full access to an establishment and must not ship in frontend code. In a
   * browser-like runtime the client refuses to start unless this is true.
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /**
   * What the client logs: 'off' (default), 'error', 'warn', 'info' (retries) or 'debug' (every
   * request and answer: method, path, status, time, request id; never the key or a body).
   * Default: the MERMA_LOG environment variable, else 'off'.
   */
  logLevel?: LogLevel | undefined;
  /** Where log lines go (default: the global console). pino, winston and console fit. */
  logger?: Logger | undefined;
};

export const DEFAULT_BASE_URL = 'https://api.merma.app';

/** An environment variable, where the runtime has them and lets us read them (Deno may not). */
function env(name: string): string | undefined {
  try {
    const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
    return proc?.env?.[name] || undefined;
  } catch {
    return undefined;
  }
}

function isBrowserLike(): boolean {
  const g = globalThis as { window?: { document?: unknown } };
  return typeof g.window !== 'undefined' && typeof g.window.document !== 'undefined';
}

/** The Merma API client. */
export class Merma {
  readonly records: Records;
  readonly causas: Causas;
  readonly destinos: Destinos;
  readonly establishments: Establishments;
  readonly products: Products;
  readonly analytics: Analytics;
  readonly benchmarking: Benchmarking;
  readonly predict: Predict;
  readonly preventionPlan: PreventionPlans;
  readonly shifts: Shifts;
  /** Closed weekdays and closures, which the demand forecast reads. */
  readonly openingCalendar: OpeningCalendar;
  readonly sessions: Sessions;
  readonly webhooks: Webhooks;
  readonly inbound: Inbound;
  /** true for a `svc_live_` key (production data), false for `svc_test_`. */
  readonly livemode: boolean;
  readonly #listeners: Listeners = { request: new Set(), response: new Set() };

  constructor(options: MermaOptions = {}) {
    const apiKey = options.apiKey ?? env('MERMA_API_KEY');
    if (!apiKey) {
      throw new MermaError('Missing API key: pass new Merma({ apiKey }) or set MERMA_API_KEY');
    }
    const mode = keyMode(apiKey);
    if (!mode) {
      throw new MermaError(`Invalid API key: it must start with ${LIVE_KEY_PREFIX} or ${TEST_KEY_PREFIX}`);
    }
    if (isBrowserLike() && !options.dangerouslyAllowBrowser) {
      throw new MermaError(
        'Refusing to run in a browser: an API key gives full access to an establishment and must stay on a server. ' +
          'Pass dangerouslyAllowBrowser: true only if you understand the risk.',
      );
    }
    const logLevel = options.logLevel ?? (isLogLevel(env('MERMA_LOG')) ? (env('MERMA_LOG') as LogLevel) : 'off');
    const core = new HttpCore({
      apiKey,
      baseUrl: options.baseUrl ?? env('MERMA_BASE_URL') ?? DEFAULT_BASE_URL,
      timeout: durationOption(options.timeout, 30_000),
      maxRetries: countOption(options.maxRetries, 2),
      maxRetryAfter: waitCapOption(options.maxRetryAfter, 60_000),
      fetch: options.fetch,
      fetchOptions: options.fetchOptions,
      listeners: this.#listeners,
      defaultHeaders: options.defaultHeaders,
      log: makeLogger(logLevel, options.logger ?? globalThis.console),
    });
    this.livemode = mode === 'live';
    this.records = new Records(core);
    this.causas = new Causas(core);
    this.destinos = new Destinos(core);
    this.establishments = new Establishments(core);
    this.products = new Products(core);
    this.analytics = new Analytics(core);
    this.benchmarking = new Benchmarking(core);
    this.predict = new Predict(core);
    this.preventionPlan = new PreventionPlans(core);
    this.shifts = new Shifts(core);
    this.openingCalendar = new OpeningCalendar(core);
    this.sessions = new Sessions(core);
    this.webhooks = new Webhooks(core);
    this.inbound = new Inbound(core);
  }

  /**
   * Listens to every attempt (retries included), for metrics and tracing, as stripe-node's
   * `on('request' | 'response')`: `request` before each attempt is sent (method, path, attempt,
   * idempotencyKey, startedAt), `response` for each answer, errors and retried ones included
   * (plus status, requestId, elapsedMs). A connection failure or timeout has no `response` event.
   * A listener that throws is logged (at `warn`) and does not affect the call. Returns the client.
   */
  on<E extends keyof ClientEvents>(event: E, listener: (event: ClientEvents[E]) => void): this {
    (this.#listeners[event] as Set<(event: ClientEvents[E]) => void>).add(listener);
    return this;
  }

  /** Stops calling a listener added with `on`. Returns the client. */
  off<E extends keyof ClientEvents>(event: E, listener: (event: ClientEvents[E]) => void): this {
    (this.#listeners[event] as Set<(event: ClientEvents[E]) => void>).delete(listener);
    return this;
  }
}
