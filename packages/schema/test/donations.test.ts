import { describe, expect, it } from 'vitest';
import { CreateDonationAgreementInput, EntityNif, isValidEntityNif, normalizeNif } from '../src/index.js';

/** The NIF of a social entity (a legal person's, the former CIF) and the agreement's dates. */
describe('isValidEntityNif', () => {
  it('accepts NIFs of legal persons with their control digit or letter', () => {
    // A: a digit always; Q and R: a letter always; G: either.
    for (const nif of ['A58818501', 'Q2826000H', 'R2800001F', 'G28029643', 'G2802964C', 'B12345674']) {
      expect(isValidEntityNif(nif), nif).toBe(true);
    }
  });

  it('refuses a wrong control, the wrong kind of control, a person’s DNI or NIE and other shapes', () => {
    for (const nif of [
      'G28029644', // wrong digit
      'A5881850A', // A takes a digit
      'Q28260008', // Q takes a letter
      '12345678Z', // a DNI
      'X1234567L', // a NIE
      'I2802964C', // no such kind
      'G2802964', // too short
      'g28029643', // not normalised
      '',
    ]) {
      expect(isValidEntityNif(nif), nif).toBe(false);
    }
  });

  it('reads a NIF as written on paper', () => {
    expect(normalizeNif(' g-28.029.643 ')).toBe('G28029643');
    expect(EntityNif.parse('r 2800001 f')).toBe('R2800001F');
    expect(EntityNif.safeParse('G-2802964-4').success).toBe(false);
  });
});

describe('CreateDonationAgreementInput', () => {
  const valid = {
    entity_id: '00000000-0000-4000-8000-000000000001',
    establishment_ids: ['00000000-0000-4000-8000-000000000002'],
    valid_from: '2026-01-01',
    valid_until: '2026-01-01',
    renewal: 'none',
    accepted_food_categories: ['bakery'],
    conditions: { chilled: false, frozen: false, cooked: false, near_best_before: false },
    collection: { schedule: 'Lunes', weekdays: ['monday'], transport: 'donor' },
    storage_conditions: 'Seco',
    safety_responsibility_clause: 'Cada parte',
    refusal_procedure: 'Por escrito',
  };

  it('takes an agreement of one day, and refuses one that ends before it starts', () => {
    expect(CreateDonationAgreementInput.safeParse(valid).success).toBe(true);
    const backwards = CreateDonationAgreementInput.safeParse({ ...valid, valid_until: '2025-12-31' });
    expect(backwards.success).toBe(false);
    expect(backwards.error?.issues.map((i) => i.path.join('.'))).toEqual(['valid_until']);
  });
});
