import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without declarations
import { GENERATED_PATH, generateTypes } from '../scripts/generate-types.mjs';

describe('src/generated/api-types.ts', () => {
  it('is what @merma/schema generates today (run `pnpm --filter @merma/sdk generate` after changing a schema)', () => {
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(generateTypes());
  });

  it('declares types only: no zod, no values', () => {
    const text = readFileSync(GENERATED_PATH, 'utf8');
    expect(text).not.toMatch(/\bimport\b|\bzod\b|export (const|function|class)/);
    expect(text).toMatch(/export type WebhookEvent = RecordCreatedEvent \| /);
  });
});
