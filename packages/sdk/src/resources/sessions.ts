import { CreateSessionInput, ListSessionsQuery, ListSessionsResponse, type Session, SessionIdParams, SessionResponse } from '@merma/schema';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { Page, PagePromise } from '../core/pagination.js';
import { validate } from '../core/validate.js';

/** Registration sessions: records weighed together, completed once. */
export class Sessions {
  constructor(private readonly core: HttpCore) {}

  async create(input: CreateSessionInput, options?: RequestOptions): Promise<Session> {
    const body = validate(CreateSessionInput, input);
    return (await this.core.request({ method: 'POST', path: '/sessions', body }, SessionResponse, options)).data;
  }

  async get(id: string, options?: RequestOptions): Promise<Session> {
    validate(SessionIdParams, { id });
    return (await this.core.request({ method: 'GET', path: `/sessions/${id}` }, SessionResponse, options)).data;
  }

  /** Completes a session: fixes its record count and kg, and emits `session.completed`. */
  async complete(id: string, options?: RequestOptions): Promise<Session> {
    validate(SessionIdParams, { id });
    return (await this.core.request({ method: 'POST', path: `/sessions/${id}/complete` }, SessionResponse, options)).data;
  }

  list(query: ListSessionsQuery = {}, options?: RequestOptions): PagePromise<Session> {
    const q = validate(ListSessionsQuery, query);
    const fetchAt = async (offset: number): Promise<Page<Session>> => {
      const res = await this.core.request({ method: 'GET', path: '/sessions', query: { ...q, offset } }, ListSessionsResponse, options);
      return new Page(res.data, res.meta.pagination, fetchAt);
    };
    return new PagePromise(fetchAt);
  }
}
