import { renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { i18n } from '../src/i18n/index.ts';
import { numberFormat } from '../src/lib/decimal.ts';
import { DisplayTimeZone, useFormat } from '../src/lib/format.ts';

/**
 * `useFormat`'s formats are made once per locale and time zone and kept (lib/format.ts): what is
 * kept must never be another zone's or another language's.
 */
const INSTANT = '2026-07-15T08:30:00Z'; // 10:30 in Madrid (CEST), 09:30 in the Canaries (WEST)

function formatIn(zone: string | undefined) {
  const wrapper = ({ children }: { children: ReactNode }) => <DisplayTimeZone.Provider value={zone}>{children}</DisplayTimeZone.Provider>;
  return renderHook(() => useFormat(), { wrapper }).result.current;
}

describe('useFormat', () => {
  it("writes an instant on each establishment's clock, whichever zone was formatted first", () => {
    for (let round = 0; round < 2; round++) {
      expect(formatIn('Europe/Madrid').dateTime(INSTANT)).toContain('10:30');
      expect(formatIn('Atlantic/Canary').dateTime(INSTANT)).toContain('09:30');
      expect(formatIn('America/New_York').dateTime(INSTANT)).toContain('04:30');
    }
  });

  it('writes in the language chosen, switching back and forth', async () => {
    const before = i18n.language;
    try {
      for (const [language, day, kg] of [
        ['es', /^15 jul$/, '1234,6 kg'],
        ['en', /^(15 Jul|Jul 15)$/, '1,234.6 kg'], // the browser's region decides the order (formatLocale)
        ['es', /^15 jul$/, '1234,6 kg'],
      ] as const) {
        await i18n.changeLanguage(language);
        const format = formatIn('Europe/Madrid');
        expect(format.day('2026-07-15')).toMatch(day);
        expect(format.kg(1234.56)).toBe(kg);
      }
    } finally {
      await i18n.changeLanguage(before);
    }
  });

  it('keeps one number format per language and options', () => {
    expect(numberFormat('es', { maximumFractionDigits: 1 })).toBe(numberFormat('es', { maximumFractionDigits: 1 }));
    expect(numberFormat('es', { maximumFractionDigits: 1 }).format(1.25)).toBe('1,3');
    expect(numberFormat('es', { maximumFractionDigits: 3 }).format(1.25)).toBe('1,25');
    expect(numberFormat('en', { maximumFractionDigits: 3 }).format(1.25)).toBe('1.25');
  });
});
