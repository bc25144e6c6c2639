import { keyMode, LIVE_KEY_PREFIX, TEST_KEY_PREFIX } from '@merma/schema';
import { APIPromise } from './core/api-promise.js';
import { MermaError } from './core/errors.js';
import {
  type ClientEvents,
  countOption,
  durationOption,
  type FetchOptions,
  HttpCore,
  type HttpMethod,
  type Listeners,
  type RequestOptions,
  waitCapOption,
} from './core/http.js';
import { isLogLevel, type Logger, type LogLevel, makeLogger } from './core/log.js';
import { Causas, Compliance, Destinos, Establishments, Products } from './resources/catalog.js';
import { DonationAgreements, Donations, SocialEntities } from './resources/donations.js';
import { Analytics, Benchmarking, Predict, PreventionPlans } from './resources/insights.js';
import { OpeningCalendar } from './resources/opening-calendar.js';
import { Photos } from './resources/photos.js';
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
   * Pins the API version (`Merma-Version: <date>`, e.g. '2026-11-28'): the server answers every
   * call with that version's contract and names it in the answer's `Merma-Version`. Unset: the
   * server's current version. A call's `apiVersion` option overrides it; a version the server does
   * not know is refused with 400 (BadRequestError).
   */
  apiVersion?: string | undefined;
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

/**
 * The options of `client.get/post/put/patch/delete`: the per-call options of every method, plus the
 * query string and (except for GET) the JSON body.
 */
export type GenericRequestOptions = RequestOptions & {
  /** Added to the URL as a query string; `undefined` and `null` values are left out. */
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  /** Sent as JSON. */
  body?: unknown;
};

const API_PREFIX = '/api/v1';

/** The API path of a generic call: relative to /api/v1 (which may be written out), never another host. */
function apiPath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) {
    throw new MermaError(`Invalid path ${JSON.stringify(path)}: give the API path, e.g. '/records' (relative to ${API_PREFIX})`);
  }
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`) || path.startsWith(`${API_PREFIX}?`)
    ? path.slice(API_PREFIX.length) || '/'
    : path;
}

/** The Merma API client. */
export class Merma {
  readonly records: Records;
  /** Photos of the waste, which records name by their `url`. */
  readonly photos: Photos;
  readonly causas: Causas;
  readonly destinos: Destinos;
  readonly establishments: Establishments;
  /** "Am I obliged?": what Ley 1/2025 asks of this establishment. */
  readonly compliance: Compliance;
  readonly products: Products;
  readonly analytics: Analytics;
  readonly benchmarking: Benchmarking;
  readonly predict: Predict;
  readonly preventionPlan: PreventionPlans;
  readonly shifts: Shifts;
  /** Closed weekdays and closures, which the demand forecast reads. */
  readonly openingCalendar: OpeningCalendar;
  /** The organisation's social entities and food banks (donations). */
  readonly socialEntities: SocialEntities;
  /** Donation agreements with social entities, and their signed documents. */
  readonly donationAgreements: DonationAgreements;
  /** Food offered to social entities under those agreements, line by line, up to its receipt. */
  readonly donations: Donations;
  readonly sessions: Sessions;
  readonly webhooks: Webhooks;
  readonly inbound: Inbound;
  /** true for a `svc_live_` key (production data), false for `svc_test_`. */
  readonly livemode: boolean;
  readonly #listeners: Listeners = { request: new Set(), response: new Set() };
  readonly #core: HttpCore;

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
      apiVersion: options.apiVersion,
      log: makeLogger(logLevel, options.logger ?? globalThis.console),
    });
    this.#core = core;
    this.livemode = mode === 'live';
    this.records = new Records(core);
    this.photos = new Photos(core);
    this.causas = new Causas(core);
    this.destinos = new Destinos(core);
    this.establishments = new Establishments(core);
    this.compliance = new Compliance(core);
    this.products = new Products(core);
    this.analytics = new Analytics(core);
    this.benchmarking = new Benchmarking(core);
    this.predict = new Predict(core);
    this.preventionPlan = new PreventionPlans(core);
    this.shifts = new Shifts(core);
    this.openingCalendar = new OpeningCalendar(core);
    this.socialEntities = new SocialEntities(core);
    this.donationAgreements = new DonationAgreements(core);
    this.donations = new Donations(core);
    this.sessions = new Sessions(core);
    this.webhooks = new Webhooks(core);
    this.inbound = new Inbound(core);
  }

  /**
   * Calls an endpoint the SDK has no method for yet, as openai-node's and stripe-node's generic
   * methods do: the same key, retries, `Idempotency-Key` on POSTs (generated once per call unless
   * given), typed errors and `{ data }` unwrapping as every other method; the result is typed `T`
   * (default `unknown`), not checked. `path` is relative to /api/v1 (`'/records'`; a path written
   * with `/api/v1` is taken as it is); a query string in it is kept. Never sent to another host.
   */
  get<T = unknown>(path: string, options?: Omit<GenericRequestOptions, 'body'>): APIPromise<T> {
    return this.#generic('GET', path, options);
  }

  /** A POST through the generic door (see `get`): retried only with its Idempotency-Key. */
  post<T = unknown>(path: string, options?: GenericRequestOptions): APIPromise<T> {
    return this.#generic('POST', path, options);
  }

  /** A PUT through the generic door (see `get`). */
  put<T = unknown>(path: string, options?: GenericRequestOptions): APIPromise<T> {
    return this.#generic('PUT', path, options);
  }

  /** A PATCH through the generic door (see `get`). */
  patch<T = unknown>(path: string, options?: GenericRequestOptions): APIPromise<T> {
    return this.#generic('PATCH', path, options);
  }

  /** A DELETE through the generic door (see `get`). */
  delete<T = unknown>(path: string, options?: GenericRequestOptions): APIPromise<T> {
    return this.#generic('DELETE', path, options);
  }

  #generic<T>(method: HttpMethod, path: string, options: GenericRequestOptions = {}): APIPromise<T> {
    const { query, body, ...requestOptions } = options;
    let target: string;
    try {
      target = apiPath(path);
    } catch (err) {
      return new APIPromise<T>(Promise.reject(err));
    }
    const [bare = '/', search] = target.split(/\?(.*)/s, 2);
    const merged: Record<string, string | number | boolean | undefined | null> = Object.fromEntries(new URLSearchParams(search ?? ''));
    Object.assign(merged, query);
    return this.#core.request<T>({ method, path: bare, query: merged, ...(body !== undefined ? { body } : {}) }, requestOptions);
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
