import { CreateShiftInput, CreateShiftResponse, ListShiftsResponse, type Shift } from '@merma/schema';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { validate } from '../core/validate.js';

/** Work shifts (an overnight shift ends before it starts: 22:00–06:00). */
export class Shifts {
  constructor(private readonly core: HttpCore) {}

  async list(options?: RequestOptions): Promise<Shift[]> {
    return (await this.core.request({ method: 'GET', path: '/shifts' }, ListShiftsResponse, options)).data;
  }

  async create(input: CreateShiftInput, options?: RequestOptions): Promise<Shift> {
    const body = validate(CreateShiftInput, input);
    return (await this.core.request({ method: 'POST', path: '/shifts', body }, CreateShiftResponse, options)).data;
  }
}
