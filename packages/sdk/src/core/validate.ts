import type { z } from 'zod';
import { ValidationError } from './errors.js';

/** Checks input with the API's own schema before sending; throws ValidationError naming each field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ValidationError(parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })));
}
