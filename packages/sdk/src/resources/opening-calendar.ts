import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import type { OpeningCalendar as Calendar, Closure, CreateClosureInput, SetClosedWeekdaysInput } from '../generated/api-types.js';
import { segment } from './path.js';

/**
 * The establishment's opening calendar: the weekdays it is closed every week and its closures
 * (holidays, a winter break). The demand forecast leaves closed days out of what it learns from,
 * advises nothing for them and marks the first open days after a closure.
 */
export class OpeningCalendar {
  readonly closures: Closures;

  constructor(private readonly core: HttpCore) {
    this.closures = new Closures(core);
  }

  /** The closed weekdays (Monday first) and every closure (the earliest first). */
  retrieve(options?: RequestOptions): APIPromise<Calendar> {
    return this.core.request({ method: 'GET', path: '/opening-calendar' }, options);
  }

  /** Replaces the closed weekdays (`[]`: open every day of the week); answers the whole calendar. */
  setClosedWeekdays(input: SetClosedWeekdaysInput, options?: RequestOptions): APIPromise<Calendar> {
    return this.core.request({ method: 'PUT', path: '/opening-calendar/weekdays', body: input }, options);
  }
}

/** Closures: ranges of local days the establishment is closed, both ends included. */
export class Closures {
  constructor(private readonly core: HttpCore) {}

  create(input: CreateClosureInput, options?: RequestOptions): APIPromise<Closure> {
    return this.core.request({ method: 'POST', path: '/opening-calendar/closures', body: input }, options);
  }

  delete(id: string, options?: RequestOptions): APIPromise<{ id: string; deleted: true }> {
    return this.core.request({ method: 'DELETE', path: `/opening-calendar/closures/${segment(id)}` }, options);
  }
}
