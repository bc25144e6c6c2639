import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../src/config.js';

describe('configuration', () => {
  it('the README’s configuration table lists every variable the server reads, and no other', () => {
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const listed = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...SETTINGS].sort());
  });

  it('tracing is on when an OTLP endpoint is set, unless the SDK is disabled', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({ serviceName: 'merma' });
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces', OTEL_SERVICE_NAME: 'merma-eu' }).tracing,
    ).toEqual({ serviceName: 'merma-eu' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318 ' })).toThrow(ConfigError);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('URLs must have the scheme their client speaks (a forgotten scheme is not read as one)', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://postgres@db:5432/merma' }).databaseUrl).toBe('postgresql://postgres@db:5432/merma');
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db/merma?sslmode=require' }).databaseUrl).toBe(
      'postgres://u:p@db/merma?sslmode=require',
    );
    expect(loadConfig({ DATABASE_URL: 'postgresql:///merma?host=/var/run/postgresql' }).databaseUrl).toBe(
      'postgresql:///merma?host=/var/run/postgresql',
    );
    expect(loadConfig({ REDIS_URL: 'rediss://default:s3cret@cache:6380' }).redisUrl).toBe('rediss://default:s3cret@cache:6380');
    expect(loadConfig({ SMTP_URL: 'smtps://user:pass@mail:465' }).smtpUrl).toBe('smtps://user:pass@mail:465');
    expect(() => loadConfig({ DATABASE_URL: 'localhost:5432/merma' })).toThrow(/DATABASE_URL: expected a postgresql:\/\/ URL/);
    expect(() => loadConfig({ REDIS_URL: 'http://cache:6379' })).toThrow(/REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => loadConfig({ SMTP_URL: 'mail.example.com:587' })).toThrow(/SMTP_URL/);
  });

  it('a secret may come from a file (<NAME>_FILE, as Docker and Kubernetes mount secrets), never from both forms', () => {
    const dir = mkdtempSync(join(tmpdir(), 'merma-secret-'));
    try {
      const key = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
      writeFileSync(join(dir, 'key'), `${key}\n`);
      writeFileSync(join(dir, 'db'), 'postgresql://merma:s3cret@db:5432/merma');
      const config = loadConfig({ MERMA_ENCRYPTION_KEY_FILE: join(dir, 'key'), DATABASE_URL_FILE: join(dir, 'db') });
      expect(config.encryptionKeys?.map((k) => k.id)).toEqual(['k1']);
      expect(config.databaseUrl).toBe('postgresql://merma:s3cret@db:5432/merma');
      expect(() => loadConfig({ MERMA_ENCRYPTION_KEY_FILE: join(dir, 'key'), MERMA_ENCRYPTION_KEY: key })).toThrow(
        /MERMA_ENCRYPTION_KEY_FILE: give MERMA_ENCRYPTION_KEY or MERMA_ENCRYPTION_KEY_FILE, not both/,
      );
      expect(() => loadConfig({ SMTP_URL_FILE: join(dir, 'missing') })).toThrow(/SMTP_URL_FILE: cannot read .*missing \(ENOENT\)/);
      // The file's content is checked as the variable would be.
      expect(() => loadConfig({ DATABASE_URL_FILE: join(dir, 'key') })).toThrow(/DATABASE_URL: expected a postgresql:\/\/ URL/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
