import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { type PagePromise, paginate } from '../core/pagination.js';
import type { CreateSessionInput, ListSessionsQuery, Session } from '../generated/api-types.js';
import { segment } from './path.js';

/** Registration sessions: records weighed together, completed once. */
export class Sessions {
  constructor(private readonly core: HttpCore) {}

  create(input: CreateSessionInput, options?: RequestOptions): APIPromise<Session> {
    return this.core.request({ method: 'POST', path: '/sessions', body: input }, options);
  }

  get(id: string, options?: RequestOptions): APIPromise<Session> {
    return this.core.request({ method: 'GET', path: `/sessions/${segment(id)}` }, options);
  }

  /** Completes a session: fixes its record count and kg, and emits `session.completed`. */
  complete(id: string, options?: RequestOptions): APIPromise<Session> {
    return this.core.request({ method: 'POST', path: `/sessions/${segment(id)}/complete` }, options);
  }

  list(query: ListSessionsQuery = {}, options?: RequestOptions): PagePromise<Session> {
    return paginate(
      (offset) => this.core.send({ method: 'GET', path: '/sessions', query: { ...query, offset } }, options),
      query.offset ?? 0,
    );
  }
}
