import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import type { CreateShiftInput, Shift } from '../generated/api-types.js';

/** Work shifts (an overnight shift ends before it starts: 22:00–06:00). */
export class Shifts {
  constructor(private readonly core: HttpCore) {}

  list(options?: RequestOptions): APIPromise<Shift[]> {
    return this.core.request({ method: 'GET', path: '/shifts' }, options);
  }

  create(input: CreateShiftInput, options?: RequestOptions): APIPromise<Shift> {
    return this.core.request({ method: 'POST', path: '/shifts', body: input }, options);
  }
}
