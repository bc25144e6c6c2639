import nodemailer from 'nodemailer';
import type { Log } from './context.js';

export type Mail = { to: string; subject: string; text: string };
export type Mailer = { send(mail: Mail): Promise<void>; close(): void };

/**
 * Notices to organisation administrators, through nodemailer over `SMTP_URL`. Without it the mail
 * is written to the log instead (development), so nothing is silently dropped.
 */
export function createMailer(options: { smtpUrl: string | undefined; from: string; log: Pick<Log, 'info'> }): Mailer {
  if (!options.smtpUrl) {
    return {
      async send(mail) {
        options.log.info({ mail: { from: options.from, ...mail } }, 'mail (SMTP_URL is not set, so it is logged instead of sent)');
      },
      close() {},
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
  };
}
