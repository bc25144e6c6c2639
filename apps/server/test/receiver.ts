import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { deadline } from '@merma/testing';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// The HTTP receiver is the one the SDK's and the examples' tests use (packages/test-server): one
// implementation. It needs only node:http, so reaching it by path adds no build dependency.
export { type Received, startReceiver } from '../../../packages/test-server/src/receiver.js';

export type Mail = { from: string; to: string[]; raw: string };

/** A real SMTP server (smtp-server) on a loopback port, keeping what it is sent. */
export async function startSmtp() {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Polls `check` until it returns a truthy value (or fails after `timeoutMs` of real time). */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const giveUpAt = performance.now() + deadline(timeoutMs);
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > giveUpAt) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An e-mail as its reader sees it: the decoded subject and plain text (quoted-printable, encoded words). */
export async function readMail(raw: string): Promise<{ subject: string; text: string }> {
  const parsed = await simpleParser(raw);
  return { subject: parsed.subject ?? '', text: (parsed.text ?? '').replace(/\r\n/g, '\n') };
}
