import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { validationError } from '../../errors.js';

/**
 * Passwords are hashed with argon2id (@node-rs/argon2, hashing off the main thread) at OWASP's
 * recommended cost: 19 MiB of memory, 2 iterations, 1 lane (about 20 ms here). The PHC string keeps
 * its parameters, so raising them later only needs a rehash at the next sign-in (`needsRehash`).
 */
// algorithm 2 is Argon2id (the package's const enum, which isolated modules cannot read).
const PARAMS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const CURRENT = `$argon2id$v=19$m=${PARAMS.memoryCost},t=${PARAMS.timeCost},p=${PARAMS.parallelism}$`;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false; // a malformed stored hash never signs anyone in
  }
}

export function needsRehash(stored: string): boolean {
  return !stored.startsWith(CURRENT);
}

/**
 * A hash of a random password, verified against when the e-mail is unknown or has no password yet,
 * so that the answer takes as long as for a real account (no account enumeration by timing).
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(crypto.randomUUID());
  return decoy;
}

/**
 * New passwords must not be easy to guess (ASVS 2.1.7, NIST SP 800-63B 5.1.1.2): the length rule
 * of @merma/schema (12 to 200 characters) is checked first, then zxcvbn-ts with its common-password
 * and keyboard-pattern lists (offline, maintained) estimates how many guesses the password takes,
 * counting the account's e-mail and name as known words. Below 10^8 guesses (zxcvbn score 3,
 * "safely unguessable" against throttled online attacks and moderate offline ones) it is refused,
 * as is any password that contains the e-mail address or its part before the @. No composition
 * rules: a long phrase of unrelated words passes.
 */
export const MIN_PASSWORD_SCORE = 3;
const estimator = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
const GUESSABLE =
  'This password is too easy to guess: avoid common passwords, patterns and your own name or e-mail; a phrase of several unrelated words works well';

export function assertStrongPassword(password: string, account: { email: string; name?: string | null | undefined }): void {
  const lower = password.toLowerCase();
  const email = account.email.toLowerCase();
  const local = email.split('@')[0] ?? '';
  if (lower.includes(email) || (local.length >= 3 && lower.includes(local))) {
    throw validationError('The password may not contain your e-mail address', [
      { path: 'password', message: 'contains the e-mail address' },
    ]);
  }
  const known = [email, local, ...local.split(/[._+-]+/), ...(account.name ?? '').toLowerCase().split(/\s+/)].filter((w) => w.length >= 3);
  if (estimator.check(password, known).score < MIN_PASSWORD_SCORE) {
    throw validationError(GUESSABLE, [{ path: 'password', message: 'too easy to guess' }]);
  }
}
