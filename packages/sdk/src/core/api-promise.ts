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
export class APIPromise<T> implements PromiseLike<T> {
  private readonly result: Promise<APIResponse<T>>;

  constructor(result: Promise<APIResponse<unknown>>, map?: (raw: APIResponse<unknown>) => T) {
    this.result = map ? result.then((raw) => ({ ...raw, data: map(raw) })) : (result as Promise<APIResponse<T>>);
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
  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise.prototype.then
    onrejected?: ((reason: any) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.result.then((r) => r.data).then(onfulfilled, onrejected);
  }

  // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise.prototype.catch
  catch<R = never>(onrejected?: ((reason: any) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }
}
