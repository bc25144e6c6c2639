import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { demoOwnerLink, inviteFirstOwner } from './admin/accounts.js';
import {
  AdminError,
  cancelOrganization,
  createEstablishment,
  createKey,
  createOrganization,
  importProducts,
  listKeys,
  quickstart,
  reactivateWebhook,
  reencryptWebhookSecrets,
  revokeKey,
  setOrganizationPlan,
} from './admin/service.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { createMailer, mailOptionsOf } from './mail.js';
import { publicUrlForCli } from './running-server.js';
import type { SecretBox } from './secrets/cipher.js';

/** The mailer's log lines (SMTP only here): stderr, so that stdout stays one JSON value. */
const stderrLine = (obj: object, msg?: string) => void process.stderr.write(`${JSON.stringify({ msg, ...obj })}\n`);
const stderrLog = { info: stderrLine, warn: stderrLine };

/**
 * merma-admin: the administration CLI. Prints one JSON value on stdout; on bad arguments prints one
 * line on stderr, exits non-zero and writes nothing. Uses the same configuration as the server
 * (DATABASE_URL, or the embedded database under DATA_DIR, shared with a running server).
 */
const USAGE = `usage: merma-admin <command>
  org create --name N --plan basic|pro|enterprise|enterprise_multi [--admin-email E]   (E is invited as owner)
  org set-plan --id ID --plan P
  org cancel --id ID
  establishment create --org ID --name N --cif C --sector horeca|industrial|retail|distribucion|colectividades [--timezone Europe/Madrid]
  key create --establishment ID --mode test|live [--permissions "*"|a,b,c] [--name N]
  key list --establishment ID
  key revoke --id ID
  product import --org ID --file products.csv
  webhook reactivate --id ID
  secrets reencrypt                  (after a new key was put first in MERMA_ENCRYPTION_KEY)
  quickstart                         (the demo organisation — made once, then reused — a new test key and a dashboard sign-in link)`;

type Flags = Record<string, string | undefined>;
type Command = {
  flags: string[];
  required: string[];
  run(db: Database['prisma'], f: Flags, config: Config, secrets: SecretBox): Promise<unknown>;
};

const COMMANDS: Record<string, Command> = {
  'org create': {
    flags: ['name', 'plan', 'admin-email'],
    required: ['name', 'plan'],
    run: async (db, f, config) => {
      const org = await createOrganization(db, {
        name: f.name as string,
        plan: f.plan as string,
        ...(f['admin-email'] ? { adminEmail: f['admin-email'] } : {}),
      });
      if (!org.admin_email) return org;
      // With SMTP_URL the owner is e-mailed; without it the link is printed here, on stdout, once
      // (like a new key) for the operator to hand over, and nowhere else.
      const mailer = config.mail.transport === 'smtp' ? createMailer({ ...mailOptionsOf(config), log: stderrLog }) : undefined;
      try {
        const invitation = await inviteFirstOwner(db, {
          organizationId: org.id,
          organizationName: org.name,
          email: org.admin_email,
          mailer,
          publicUrl: publicUrlForCli(config),
          log: stderrLog,
        });
        return { ...org, invitation: { ...invitation, sent: mailer ? 'email' : 'not sent (no SMTP_URL): hand the link to the owner' } };
      } finally {
        mailer?.close();
      }
    },
  },
  'org set-plan': {
    flags: ['id', 'plan'],
    required: ['id', 'plan'],
    run: (db, f) => setOrganizationPlan(db, { id: f.id as string, plan: f.plan as string }),
  },
  'org cancel': {
    flags: ['id'],
    required: ['id'],
    run: (db, f) => cancelOrganization(db, { id: f.id as string }),
  },
  'webhook reactivate': {
    flags: ['id'],
    required: ['id'],
    run: (db, f) => reactivateWebhook(db, { id: f.id as string }),
  },
  'secrets reencrypt': {
    flags: [],
    required: [],
    run: (db, _f, _config, secrets) => reencryptWebhookSecrets(db, secrets),
  },
  'establishment create': {
    flags: ['org', 'name', 'cif', 'sector', 'timezone'],
    required: ['org', 'name', 'cif', 'sector'],
    run: (db, f, config) =>
      createEstablishment(db, {
        org: f.org as string,
        name: f.name as string,
        cif: f.cif as string,
        sector: f.sector as string,
        timezone: f.timezone ?? config.defaultTimezone,
      }),
  },
  'key create': {
    flags: ['establishment', 'mode', 'permissions', 'name'],
    required: ['establishment', 'mode'],
    run: (db, f) =>
      createKey(db, {
        establishment: f.establishment as string,
        mode: f.mode as string,
        ...(f.permissions !== undefined ? { permissions: f.permissions } : {}),
        ...(f.name !== undefined ? { name: f.name } : {}),
      }),
  },
  'key list': {
    flags: ['establishment'],
    required: ['establishment'],
    run: (db, f) => listKeys(db, { establishment: f.establishment as string }),
  },
  'key revoke': { flags: ['id'], required: ['id'], run: (db, f) => revokeKey(db, { id: f.id as string }) },
  'product import': {
    flags: ['org', 'file'],
    required: ['org', 'file'],
    run: (db, f) => importProducts(db, { org: f.org as string, csv: readCsv(f.file as string) }),
  },
  quickstart: {
    flags: [],
    required: [],
    run: async (db, _f, config) => {
      const demo = await quickstart(db, { timezone: config.defaultTimezone });
      return { ...demo, dashboard: await demoOwnerLink(db, { organizationId: demo.organization.id, publicUrl: publicUrlForCli(config) }) };
    },
  },
};

function readCsv(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new AdminError(`Cannot read --file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function fail(message: string, code = 1): never {
  process.stderr.write(`merma-admin: ${message.replaceAll('\n', ' ')}\n`);
  process.exit(code);
}

async function main(argv: string[]) {
  const words = argv.filter((a) => !a.startsWith('-')).slice(0, 2);
  const name = COMMANDS[words.join(' ')] ? words.join(' ') : COMMANDS[words[0] ?? ''] ? (words[0] as string) : undefined;
  if (argv[0] === '--help' || argv[0] === '-h' || argv.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!name) fail(`unknown command "${words.join(' ')}"; run merma-admin --help`, 2);
  const command = COMMANDS[name] as Command;
  let values: Flags;
  try {
    const parsed = parseArgs({
      args: argv.slice(name.split(' ').length),
      options: Object.fromEntries(command.flags.map((f) => [f, { type: 'string' as const }])),
      allowPositionals: false,
      strict: true,
    });
    values = parsed.values as Flags;
  } catch (err) {
    fail((err as Error).message, 2);
  }
  const missing = command.required.filter((f) => values[f] === undefined || values[f] === '');
  if (missing.length) fail(`${name}: missing ${missing.map((m) => `--${m}`).join(', ')}`, 2);

  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  // An operator at a prompt wants the error at once, not the server's patient wait at boot.
  const database = await openDatabase({ ...config, databaseStartupTimeoutMs: 0 }, { migrate: config.migrateOnBoot });
  let result: unknown;
  try {
    result = await command.run(database.prisma, values, config, database.secrets);
  } catch (err) {
    await database.close();
    if (err instanceof AdminError) fail(err.message);
    throw err;
  }
  await database.close();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main(process.argv.slice(2)).catch((err) => fail(err instanceof Error ? err.message : String(err)));
