/**
 * A returned object with the `X-Request-Id` of the response that carried it, as `_request_id`
 * (as openai-node does): a non-enumerable property, so it stays out of `JSON.stringify`, spreads
 * and equality checks. Arrays and primitives are returned as they are: use `.withResponse()` (or a
 * Page's `requestId`) for those.
 */
export type WithRequestId<T> = T extends readonly unknown[] ? T : T extends object ? T & { readonly _request_id?: string | undefined } : T;

/** Adds `_request_id` (non-enumerable) to a plain object; anything else is returned unchanged. */
export function withRequestId<T>(value: T, requestId: string | undefined): WithRequestId<T> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.isExtensible(value)) {
    Object.defineProperty(value, '_request_id', { value: requestId, enumerable: false, configurable: true, writable: true });
  }
  return value as WithRequestId<T>;
}

/** What `.withResponse()` gives: the parsed data, the raw Response (its body unread: read it if you need it) and the request id. */
export type APIResponse<T> = {
  data: T;
  /** The parsed JSON body as the server sent it (the whole envelope). */
  body: unknown;
  response: Response;
  /** `X-Request-Id`: quote it when asking for support. */
  requestId: string | undefined;
};

/**
 * What every single-request method returns: await it for the data, or call `.withResponse()` for
 * the data together with the status, headers and request id of the response (the request is sent
 * once either way).
 */
export class APIPromise<T> implements PromiseLike<WithRequestId<T>> {
  private readonly result: Promise<APIResponse<T>>;

  constructor(result: Promise<APIResponse<unknown>>, map?: (raw: APIResponse<unknown>) => T) {
    this.result = map
      ? result.then((raw) => ({ ...raw, data: withRequestId(map(raw), raw.requestId) as T }))
      : (result as Promise<APIResponse<T>>);
  }

  /** The data with the response it came in: `{ data, body, response, requestId }`. */
  withResponse(): Promise<APIResponse<T>> {
    return this.result;
  }

  /** The raw Response, its body unread (`await response.json()` reads the envelope as sent). */
  asResponse(): Promise<Response> {
    return this.result.then((r) => r.response);
  }

  // biome-ignore lint/suspicious/noThenProperty: an APIPromise is awaitable on purpose
  then<R1 = WithRequestId<T>, R2 = never>(
    onfulfilled?: ((value: WithRequestId<T>) => R1 | PromiseLike<R1>) | null,
    // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise.prototype.then
    onrejected?: ((reason: any) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.result.then((r) => r.data as WithRequestId<T>).then(onfulfilled, onrejected);
  }

  // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise.prototype.catch
  catch<R = never>(onrejected?: ((reason: any) => R | PromiseLike<R>) | null): Promise<WithRequestId<T> | R> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<WithRequestId<T>> {
    return this.then().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }
}
