import { randomInt, randomUUID } from 'node:crypto';
import type { Role } from '@merma/schema/dashboard';
import { deadline } from '@merma/testing';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../src/db/client.js';
import type { Mail, Mailer } from '../src/mail.js';
import { hashPassword } from '../src/modules/accounts/password.js';

/**
 * A browser's view of the dashboard's /trpc procedures for HTTP-level tests: it keeps the cookies
 * the server sets and sends them back, with the CSRF header and `Sec-Fetch-Site: same-origin` as
 * the page does (each can be left out or changed to test the guards).
 */
export class DashboardBrowser {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly app: FastifyInstance,
    readonly ip = randomIp(),
  ) {}

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /**
   * Keeps the cookies a response sets and drops the ones it clears (an empty value, `Max-Age=0`,
   * or an `Expires` at the epoch, as `clearCookie` writes). A cookie's `Expires` is not compared
   * with this machine's date: the server under test runs on the test's clock, often fixed days or
   * months from today, and it is the server that judges a session's age by that clock.
   */
  private keep(res: LightMyRequestResponse) {
    for (const c of res.cookies as { name: string; value: string; expires?: Date; maxAge?: number }[]) {
      const gone = c.value === '' || (c.maxAge !== undefined && c.maxAge <= 0) || (c.expires !== undefined && c.expires.getTime() <= 0);
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
  }

  async raw(
    kind: 'query' | 'mutation',
    path: string,
    input?: unknown,
    options: { headers?: Record<string, string | undefined>; csrf?: boolean } = {},
  ): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': this.ip };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    const csrf = this.cookies.get('__Host-merma_csrf') ?? this.cookies.get('merma_csrf'); // production's name, or development's
    if (csrf && options.csrf !== false && kind === 'mutation') headers['x-csrf-token'] = csrf;
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      if (v === undefined) delete headers[k];
      else headers[k] = v;
    }
    const res =
      kind === 'query'
        ? await this.app.inject({
            method: 'GET',
            url: `/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`,
            headers,
          })
        : await this.app.inject({
            method: 'POST',
            url: `/trpc/${path}`,
            headers: { 'content-type': 'application/json', ...headers },
            payload: JSON.stringify(input ?? {}),
          });
    this.keep(res);
    return res;
  }

  /** The procedure's result; throws with the status and body when it fails. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read the answers as the JSON they are
  async query<T = any>(path: string, input?: unknown): Promise<T> {
    return unwrap<T>(await this.raw('query', path, input));
  }

  // biome-ignore lint/suspicious/noExplicitAny: tests read the answers as the JSON they are
  async mutate<T = any>(path: string, input?: unknown): Promise<T> {
    return unwrap<T>(await this.raw('mutation', path, input));
  }

  signIn(email: string, password: string) {
    return this.mutate('accounts.signIn', { email, password });
  }

  /**
   * What the server makes of this browser's cookies: `accounts.me`'s answer (status and data) and the
   * status of a member's procedure (`team.get`). Without a session: `{ me: { status: 200, data: null }, member: 401 }`.
   */
  async session() {
    const me = await this.raw('query', 'accounts.me');
    const member = await this.raw('query', 'team.get');
    return { me: { status: me.statusCode, data: me.statusCode === 200 ? me.json().result.data : me.json() }, member: member.statusCode };
  }
}

/** `DashboardBrowser.session()` of a browser without a session. */
export const NO_SESSION = { me: { status: 200, data: null }, member: 401 };

/**
 * A client address of its own (seen through X-Forwarded-For with TRUST_PROXY): the sign-in guard
 * counts per address, so no two browsers of a test share their allowance by accident.
 */
export function randomIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

export class CallError extends Error {
  constructor(
    readonly status: number,
    // biome-ignore lint/suspicious/noExplicitAny: an error body, read as JSON
    readonly body: any,
  ) {
    super(`${status}: ${JSON.stringify(body)}`);
  }
}

function unwrap<T>(res: LightMyRequestResponse): T {
  const body = res.json();
  if (res.statusCode >= 400) throw new CallError(res.statusCode, body);
  return body.result.data as T;
}

/** The error a call fails with: status, tRPC code, the contract's code and message. */
export async function failure(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    if (err instanceof CallError) {
      return { status: err.status, code: err.body.error?.data?.app_code, message: err.body.error?.message as string, body: err.body };
    }
    throw err;
  }
  throw new Error('the call succeeded');
}

export const PASSWORD = 'correct horse battery staple';

/** A user with a password and a membership (what accepting an invitation leaves). */
export async function createMember(db: Db, organizationId: string, role: Role, email = `${role}-${randomUUID().slice(0, 8)}@example.com`) {
  const id = randomUUID();
  await db.user.create({ data: { id, email, name: `${role} ${email}`, password_hash: await hashPassword(PASSWORD) } });
  await db.membership.create({ data: { organization_id: organizationId, user_id: id, role } });
  return { id, email };
}

/** A mailer that keeps what it is asked to send. */
/**
 * A mailer that keeps what it sends. Mail to an address at `unreachable.example` fails as an SMTP
 * server that refuses the connection would (nodemailer's error), and is not kept.
 */
export function capturingMailer(): Mailer & { sent: Mail[]; linkTo(to: string): string } {
  const sent: Mail[] = [];
  return {
    sent,
    async send(mail) {
      if (mail.to.endsWith('@unreachable.example')) {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:25'), { code: 'ESOCKET', command: 'CONN' });
      }
      sent.push(mail);
    },
    close() {},
    linkTo(to: string) {
      const mail = sent.findLast((m) => m.to === to);
      const link = mail?.text.match(/https?:\/\/\S+\?token=[\w-]+/)?.[0];
      if (!link) throw new Error(`no link mailed to ${to}`);
      return link;
    },
  };
}

export const tokenOf = (link: string) => new URL(link).searchParams.get('token') as string;

/**
 * Waits until the queue has no job of `task` left (run or given up): password-reset mails and
 * failed sign-in audits are written by jobs, after the request that queued them has answered.
 * `payload` narrows it to the jobs whose payload holds those fields (a test's own, when another
 * test of the file may leave a job of the same task waiting for a retry).
 */
export async function jobsDone(db: Db, task: string, timeoutMs = 15_000, payload: Record<string, string> = {}): Promise<void> {
  const giveUpAt = Date.now() + deadline(timeoutMs);
  const fields = JSON.stringify(payload);
  for (;;) {
    const [row] = await db.$queryRaw<{ left: number }[]>`
      SELECT count(*)::int AS left FROM graphile_worker.jobs j JOIN graphile_worker._private_jobs p ON p.id = j.id
      WHERE j.task_identifier = ${task} AND j.attempts < j.max_attempts AND p.payload::jsonb @> ${fields}::jsonb`;
    if (row?.left === 0) return;
    if (Date.now() > giveUpAt) throw new Error(`jobs ${task} still queued after ${deadline(timeoutMs)} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
