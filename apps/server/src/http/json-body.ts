import type { FastifyInstance, FastifyRequest } from 'fastify';
import { inspectJson, UNPAIRED_SURROGATE } from '../db/text.js';
import { AppError, validationError } from '../errors.js';

/** Deepest nesting of a JSON body (the documented bodies nest 3 levels; POS payloads a few more). */
export const MAX_BODY_DEPTH = 64;

/**
 * The one JSON body parser, for every route (/api/v1, /trpc, and any later one), in place of
 * Fastify's. Before anything builds objects from the text it checks, in one pass and without
 * recursion, that the body nests at most MAX_BODY_DEPTH levels: deeper bodies overflowed the stack
 * of whatever walks them again (tRPC's adapter re-serialises the body, the Idempotency-Key
 * fingerprint, jsonb), answering 500. Then it refuses an own `__proto__` key or a
 * `constructor.prototype` pair anywhere (prototype pollution), as Fastify's parser did with
 * onProtoPoisoning/onConstructorPoisoning 'error', but saying so instead of "not valid JSON".
 *
 * Every refusal is a 400 `validation_error` written by the one formatter (http/errors.ts): on /trpc
 * too, as its other refusals before a procedure runs (415, 413, CSRF) are.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    try {
      done(null, parseJsonBody(body.toString()));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/**
 * A parsed body must be text the database can store as given: unpaired surrogates (`\ud800`
 * escapes) would be stored as U+FFFD. Its depth was checked by the parser already; the walk keeps
 * the limit so that a body parsed some other way is held to it too.
 */
export function assertStorableJson(body: unknown): void {
  const found = inspectJson(body, UNPAIRED_SURROGATE, MAX_BODY_DEPTH);
  if (found?.reason === 'text') {
    throw validationError('Text must be valid Unicode: the body holds an unpaired UTF-16 surrogate', [
      { path: found.path, message: 'unpaired UTF-16 surrogate' },
    ]);
  }
  if (found) {
    throw validationError(`The body nests deeper than ${MAX_BODY_DEPTH} levels`, [{ path: found.path, message: 'nested too deeply' }]);
  }
}

export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw validationError("The body is empty but content-type is 'application/json'");
  if (nestingExceeds(text, MAX_BODY_DEPTH)) {
    // Refused; the path of the deepest value is found without recursion, for the error's details.
    let path = '';
    try {
      path = inspectJson(JSON.parse(text), /(?!)/, MAX_BODY_DEPTH)?.path ?? '';
    } catch {
      // Not JSON either: the depth is reason enough.
    }
    throw validationError(`The body nests deeper than ${MAX_BODY_DEPTH} levels`, [{ path, message: 'nested too deeply' }]);
  }
  let value: unknown;
  try {
    // A key can only spell __proto__ or constructor through those letters or \u escapes: other
    // bodies skip the reviver (it costs about as much as the parse).
    value = MAY_POISON.test(text) ? JSON.parse(text, refusePoisonedKeys) : JSON.parse(text);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw validationError(`The body is not valid JSON: ${(err as Error).message}`);
  }
  return value;
}

const MAY_POISON = /__|constructor|\\u/;

function refusePoisonedKeys(this: unknown, key: string, value: unknown): unknown {
  if (key === '__proto__') {
    throw validationError('The body holds a "__proto__" key, which is refused (prototype pollution)');
  }
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) {
    throw validationError('The body holds a "constructor" object with a "prototype" key, which is refused (prototype pollution)');
  }
  return value;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text opens more than `max` arrays/objects inside one another. One pass, no
 * recursion, stopping at the first level too many; strings are skipped with indexOf (most of a
 * body's bytes are strings), so the check costs next to nothing beside JSON.parse. Malformed text
 * is left for JSON.parse to refuse.
 */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The closing quote is the next one preceded by an even number of backslashes.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return false;
        let before = end - 1;
        while (text.charCodeAt(before) === BACKSLASH) before--;
        if ((end - 1 - before) % 2 === 0) break;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
