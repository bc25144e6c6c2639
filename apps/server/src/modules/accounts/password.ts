import { hash, verify } from '@node-rs/argon2';

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
