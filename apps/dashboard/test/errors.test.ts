import { describe, expect, it } from 'vitest';
import { detailText } from '../src/lib/errors.ts';
import { t } from './support/render.tsx';

/** A server detail in the reader's words, from its code and values (@merma/schema's DETAIL_CODES). */
describe('detailText', () => {
  const i18n = { t } as Parameters<typeof detailText>[0];

  it('says a refused internal webhook address, and outside production the setting that allows it', () => {
    const refused = { path: 'url', message: 'internal address refused', code: 'internal_address' as const };
    expect(detailText(i18n, refused)).toBe(t('errors.details.internal_address'));
    const local = { ...refused, params: { setting: 'WEBHOOKS_ALLOW_PRIVATE' } };
    expect(detailText(i18n, local)).toBe(t('errors.details.internal_address_setting', { setting: 'WEBHOOKS_ALLOW_PRIVATE' }));
    expect(detailText(i18n, local)).toContain('WEBHOOKS_ALLOW_PRIVATE=true');
  });

  it('puts a CSV line first, and says a detail without a code by its field and message', () => {
    const bad = {
      path: 'csv',
      message: 'line 9: ean "1" is not a valid EAN/GTIN',
      code: 'invalid_gtin' as const,
      params: { line: 9, value: '1' },
    };
    expect(detailText(i18n, bad)).toBe(t('errors.details.atLine', { line: 9, text: t('errors.details.invalid_gtin', { value: '1' }) }));
    expect(detailText(i18n, { path: 'weight_kg', message: 'too heavy' })).toBe('weight_kg: too heavy');
  });
});
