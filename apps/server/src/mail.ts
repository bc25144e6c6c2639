import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAIL_LANGUAGES, type MailLanguage } from '@merma/schema';
import nodemailer from 'nodemailer';
import type { Log } from './context.js';

export type Mail = { to: string; subject: string; text: string };
export type Mailer = {
  send(mail: Mail): Promise<void>;
  close(): void;
  /**
   * False when an e-mail reaches no inbox (`files` and `log` transports: no SMTP server is
   * configured), so that a link that exists only in an e-mail can be handed over another way (the
   * team page shows a new invitation's link once). Absent means it does.
   */
  delivers?: boolean;
};

/**
 * The language of an e-mail to someone: the first of `choices` that is one of MAIL_LANGUAGES, else
 * Spanish (the organisation's default; organisations have no language of their own). Callers pass,
 * in order, the recipient's saved dashboard language (`users.language`, set when they choose one
 * in the dashboard, or from the invitation they accepted), then what stands in for it (the
 * inviter's language when inviting).
 */
export function mailLanguage(...choices: (string | null | undefined)[]): MailLanguage {
  const found = choices.find((c): c is MailLanguage => (MAIL_LANGUAGES as readonly (string | null | undefined)[]).includes(c));
  return found ?? MAIL_LANGUAGES[0];
}

export type MailOptions = {
  /** config.mail.transport: `smtp` (SMTP_URL), `files` (outside production) or `log` (MAIL_TO_LOG). */
  transport: 'smtp' | 'files' | 'log';
  smtpUrl: string | undefined;
  from: string;
  /** Where `files` writes each e-mail (DATA_DIR/mail). */
  dir: string;
  log: Pick<Log, 'info'>;
};

/** One-time link tokens (`?token=…`) replaced by `[redacted]`: a log line never carries a usable link. */
export function redactLinks(text: string): string {
  return text.replace(/([?&]token=)[^\s&#]+/g, '$1[redacted]');
}

/**
 * The e-mails (notices to organisation administrators, invitations, password resets):
 * - `smtp`: through nodemailer over SMTP_URL;
 * - `files` (development and tests without SMTP_URL): each e-mail written to a text file under
 *   DATA_DIR/mail/, whose links a developer can open; the log names the file, never the body;
 * - `log` (production with MAIL_TO_LOG=true, no SMTP): the e-mail is logged with its one-time
 *   links redacted, so the log never holds a link that resets a password or opens a session.
 */
export function createMailer(options: MailOptions): Mailer {
  if (options.transport === 'log') {
    return {
      async send(mail) {
        options.log.info(
          { mail: { from: options.from, to: mail.to, subject: mail.subject, text: redactLinks(mail.text) } },
          'mail not sent (MAIL_TO_LOG=true, no SMTP_URL); its links are redacted',
        );
      },
      close() {},
      delivers: false,
    };
  }
  if (options.transport === 'files' || !options.smtpUrl) {
    return {
      async send(mail) {
        await mkdir(options.dir, { recursive: true, mode: 0o700 });
        const file = join(options.dir, `${new Date().toISOString().replaceAll(':', '-')}-${randomBytes(4).toString('hex')}.txt`);
        const body = `From: ${options.from}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`;
        await writeFile(file, body, { mode: 0o600 });
        options.log.info({ mail: { to: mail.to, subject: mail.subject, file } }, 'mail written to a file (SMTP_URL is not set)');
      },
      close() {},
      delivers: false,
    };
  }
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: options.from, ...mail });
    },
    close() {
      transport.close();
    },
    delivers: true,
  };
}

/** The mailer of a configuration: `mail` and the sender as config.ts parsed them. */
export function mailOptionsOf(config: {
  smtpUrl: string | undefined;
  mailFrom: string;
  mail: { transport: MailOptions['transport']; dir: string };
}) {
  return { transport: config.mail.transport, smtpUrl: config.smtpUrl, from: config.mailFrom, dir: config.mail.dir };
}
