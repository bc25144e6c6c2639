import { describe, expect, it } from 'vitest';
import auditEs from '../src/i18n/audit.es.json';
import donationsEs from '../src/i18n/donations.es.json';
import es from '../src/i18n/es.json';
import integrationsEs from '../src/i18n/integrations.es.json';
import planEs from '../src/i18n/plan.es.json';
import stationEs from '../src/i18n/station.es.json';

/** Every message of a file, by its dotted key. */
function messages(tree: object, prefix = ''): [string, string][] {
  return Object.entries(tree).flatMap(([key, value]): [string, string][] =>
    typeof value === 'string' ? [[`${prefix}${key}`, value]] : messages(value as object, `${prefix}${key}.`),
  );
}

/**
 * One Spanish word for one act: pairing a tablet with the establishment is "vincular" (vincular,
 * vinculación, desvincular) in the dashboard and the station alike — never "emparejar", which a
 * kitchen would read as another act.
 */
describe('the Spanish words for pairing a station', () => {
  const all = [
    ...messages(es),
    ...messages(stationEs, 'station:'),
    ...messages(integrationsEs, 'integrations:'),
    ...messages(donationsEs, 'donations:'),
    ...messages(planEs, 'plan:'),
    ...messages(auditEs, 'audit:'),
  ];

  it('are vincular and its family, everywhere', () => {
    expect(all.filter(([, text]) => /emparejamiento|emparejad|desemparej|emparejar\b/i.test(text))).toEqual([]);
    // The audit log names the same acts as the station and the stations page.
    expect(auditEs.audit.actions.station.pairing_started).toMatch(/^Vinculación/);
    expect(auditEs.audit.actions.station.revoked).toMatch(/desvinculada/);
    expect(stationEs.station.pair.submit).toBe('Vincular');
  });
});
