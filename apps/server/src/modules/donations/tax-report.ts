import type { DonationTaxPack, DonationTaxTotals } from '@merma/schema';
import type { AuthContext } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { validationError } from '../../errors.js';
import {
  CARRY_FORWARD_YEARS,
  CORPORATE_TAX_RATE_PCT,
  CORPORATE_TAX_RECURRENT_RATE_PCT,
  DEDUCTION_RULES_FROM_YEAR,
  type LineValuation,
  TAXABLE_BASE_LIMIT_PCT,
  type TaxNote,
} from './tax.js';
import { readTaxData, type TaxData, type TaxDataEntity, type TaxDataLine, type TaxScope } from './tax-data.js';
import { eurosToCents, kgToGrams } from './tax-money.js';
import { type Totals, taxPack } from './tax-pack.js';

/**
 * The tax pack of one year as the API serves it (`DonationTaxPack`), and what its CSV, its PDF and
 * the entities' certificates are drawn from: tax-data.ts reads the lines, tax-pack.ts computes each
 * company's figures (one taxPack per CIF: the deduction, its recurrence and its limit are the
 * company's), and this file picks the year's rows and converts cents to euros. No rule is applied
 * here; the recurrence test's amounts are tax-pack.ts's entity rows of the two previous years.
 *
 * **Who sees what.** An Enterprise Multi key sees the organisation: every company (CIF) and
 * establishment. Any other key sees its establishment: its donations, its row and its share of each
 * entity's deduction, with each entity's rate and the recurrence test that decided it, whose two
 * amounts are the company's (they are what the rate rests on); the company's totals and each
 * entity's company-wide totals are `null`, since they are other establishments' too. A key reads
 * the donations of its own mode: a test key's pack is a rehearsal of its test donations.
 */

export type TaxReportScope = TaxScope & { scope: DonationTaxPack['scope'] };

/** What a key sees (see above): the organisation on the Enterprise Multi plan, its establishment otherwise. */
export function taxReportScope(auth: AuthContext, cif: string | undefined): TaxReportScope {
  const organisation = auth.plan === 'enterprise_multi';
  return {
    scope: organisation ? 'organisation' : 'establishment',
    organizationId: auth.organizationId,
    livemode: auth.livemode,
    onlyEstablishmentId: organisation ? null : auth.establishmentId,
    cif: cif ?? null,
  };
}

/**
 * The organisation's pack in one mode, as an Enterprise Multi key of that mode sees it: what the
 * dashboard's members read (dashboard.ts, http/surfaces/dashboard-tax-pack.ts), since they see
 * every establishment of their organisation whatever its plan.
 */
export function organisationTaxScope(organizationId: string, livemode: boolean, cif: string | null = null): TaxReportScope {
  return { scope: 'organisation', organizationId, livemode, onlyEstablishmentId: null, cif };
}

export type TaxReportOptions = { year: number; taxableBase?: string | undefined; generatedAt: Date };

/** What the CSV, PDF and certificates need besides the JSON: names, addresses and each line's value. */
export type TaxReportDetails = {
  organisation: string;
  entities: Map<string, TaxDataEntity>;
  establishments: Map<string, { id: string; name: string; cif: string }>;
  /** The year's lines in scope, by donation, each with its art. 18 valuation. */
  linesByDonation: Map<string, { line: TaxDataLine; value: LineValuation }[]>;
};

export type TaxReport = { pack: DonationTaxPack; details: TaxReportDetails };

const euros = (cents: number) => cents / 100;
const yearOf = (day: string) => Number(day.slice(0, 4));

function totalsInEuros(t: Totals): DonationTaxTotals {
  return {
    net_kg: t.net_kg,
    book_value: euros(t.book_value_cents),
    market_value_cap: euros(t.market_cap_cents),
    base: euros(t.base_cents),
    deductible_base: euros(t.deductible_base_cents),
    base_within_limit: euros(t.base_within_limit_cents),
    base_over_limit: euros(t.base_over_limit_cents),
    deduction: euros(t.deduction_cents),
  };
}

/** Each kind of note once, in the order met. */
function uniqueNotes(notes: readonly TaxNote[]): TaxNote[] {
  const seen = new Set<string>();
  return notes.filter((n) => !seen.has(n.code) && seen.add(n.code));
}

/** The taxable base as given (`"-1234.5"`), in cents. */
function taxableBaseCents(text: string): number {
  const negative = text.startsWith('-');
  const cents = eurosToCents(negative ? text.slice(1) : text);
  return negative ? -cents : cents;
}

/** The certificate the entity signed for the company's gifts of the year, as stored (certificates.ts); null until one is. */
function signedCertificate(
  data: TaxData,
  cif: string,
  entityId: string,
): DonationTaxPack['taxpayers'][number]['entities'][number]['signed_certificate'] {
  const found = data.certificates.find((c) => c.cif === cif && c.entity_id === entityId);
  return found ? { sha256: found.sha256, uploaded_at: found.uploaded_at } : null;
}

/** One company's year, from its own taxPack. */
function taxpayerYear(
  data: TaxData,
  cif: string,
  scope: TaxReportScope,
  options: TaxReportOptions,
  details: TaxReportDetails,
): DonationTaxPack['taxpayers'][number] | null {
  const { year } = options;
  const establishments = data.establishments.filter((e) => e.cif === cif);
  const ids = new Set(establishments.map((e) => e.id));
  const lines = data.lines.filter((l) => ids.has(l.establishment_id));
  if (!lines.some((l) => yearOf(l.handed_over_on) === year)) return null;
  const entityIds = new Set(lines.map((l) => l.entity_id));
  const pack = taxPack({
    entities: data.entities.filter((e) => entityIds.has(e.id)),
    lines,
    ...(options.taxableBase === undefined ? {} : { taxable_base_cents: { [year]: taxableBaseCents(options.taxableBase) } }),
    records_since_year: data.firstYears[cif] ?? year,
  });
  const inScope = (establishmentId: string) => scope.onlyEstablishmentId === null || establishmentId === scope.onlyEstablishmentId;
  const organisationWide = scope.scope === 'organisation';

  const values = new Map(pack.lines.map((v) => [v.line_id, v]));
  const yearLines = lines.filter((l) => yearOf(l.handed_over_on) === year && inScope(l.establishment_id));
  if (yearLines.length === 0) return null;
  for (const line of yearLines) {
    const list = details.linesByDonation.get(line.donation_id) ?? [];
    list.push({ line, value: values.get(line.id) as LineValuation });
    details.linesByDonation.set(line.donation_id, list);
  }

  const vat = new Map(pack.vat.map((v) => [v.donation_id, v]));
  const donationIds = [...new Set(yearLines.map((l) => l.donation_id))];
  const donations = donationIds.map((id) => {
    const own = details.linesByDonation.get(id) ?? [];
    const first = (own[0] as { line: TaxDataLine }).line;
    const v = vat.get(id);
    const sum = (pick: (value: LineValuation) => number | null) => euros(own.reduce((a, o) => a + (pick(o.value) ?? 0), 0));
    return {
      donation_id: id,
      establishment_id: first.establishment_id,
      entity_id: first.entity_id,
      handed_over_on: first.handed_over_on,
      lines: own.length,
      net_kg: own.reduce((a, o) => a + kgToGrams(o.line.net_kg), 0) / 1000,
      book_value: sum((x) => x.book_value_cents),
      market_value_cap: sum((x) => x.market_cap_cents),
      base: sum((x) => x.base_cents),
      vat: { taxable_base: v?.taxable_base_cents ?? null, rate_pct: v?.rate_pct ?? null },
      notes: uniqueNotes([...(v?.notes ?? []), ...own.flatMap((o) => o.value.notes)]),
    };
  });

  const establishmentRows = pack.by_establishment.filter((r) => r.year === year && inScope(r.establishment_id));
  const entityRows = pack.by_entity.filter((r) => r.year === year);
  const entities = entityRows
    .map((row) => {
      const entity = data.entities.find((e) => e.id === row.entity_id) as TaxDataEntity;
      const shares = establishmentRows.flatMap((r) =>
        r.entities
          .filter((e) => e.entity_id === row.entity_id)
          .map((e) => ({ establishment_id: r.establishment_id, base: euros(e.base_cents), deduction: euros(e.deduction_cents) })),
      );
      // The amounts the rate was decided on: the company's gifts to the entity with a right to deduction.
      const recurrenceYears = [year - 2, year - 1].map((y) => {
        const earlier = pack.by_entity.find((r) => r.year === y && r.entity_id === row.entity_id);
        return { year: y, base: euros(earlier && entity.ley_49_2002.regime_opted_in ? earlier.base_cents : 0) };
      });
      return {
        entity_id: entity.id,
        name: entity.name,
        nif: entity.nif,
        legal_form: entity.legal_form,
        ley_49_2002: entity.ley_49_2002,
        rate_pct: row.rate_pct,
        recurrence: { years: recurrenceYears, met: row.notes.some((n) => n.code === 'rate_recurrence') },
        totals: organisationWide ? totalsInEuros(row) : null,
        establishments: shares,
        notes: row.notes,
        signed_certificate: signedCertificate(data, cif, entity.id),
      };
    })
    .filter((e) => organisationWide || e.establishments.length > 0);

  const organisation = pack.organisation.find((o) => o.year === year);
  return {
    cif,
    totals:
      organisationWide && organisation
        ? {
            ...totalsInEuros(organisation),
            taxable_base: organisation.taxable_base_cents === null ? null : euros(organisation.taxable_base_cents),
            limit: organisation.limit_cents === null ? null : euros(organisation.limit_cents),
            carry_forward_until_year: organisation.carry_forward_until_year,
            notes: organisation.notes,
          }
        : null,
    entities,
    establishments: establishmentRows.map((r) => ({
      establishment_id: r.establishment_id,
      name: details.establishments.get(r.establishment_id)?.name ?? '',
      ...totalsInEuros(r),
    })),
    donations,
  };
}

/** The year's pack for the key's scope (see above). */
export async function taxReport(sql: Sql, scope: TaxReportScope, options: TaxReportOptions): Promise<TaxReport> {
  const data = await readTaxData(sql, scope, options.year);
  const cifs = [...new Set(data.establishments.map((e) => e.cif))].sort();
  if (options.taxableBase !== undefined && cifs.length > 1) {
    const message = `is the taxable base of one company, and this key sees ${cifs.length} (${cifs.join(', ')}): give cif as well`;
    throw validationError(`taxable_base: ${message}`, [{ path: 'taxable_base', message }]);
  }
  const details: TaxReportDetails = {
    organisation: data.organisation,
    entities: new Map(data.entities.map((e) => [e.id, e])),
    establishments: new Map(data.establishments.map((e) => [e.id, e])),
    linesByDonation: new Map(),
  };
  const taxpayers = cifs.flatMap((cif) => taxpayerYear(data, cif, scope, options, details) ?? []);
  return {
    pack: {
      year: options.year,
      livemode: scope.livemode,
      scope: scope.scope,
      generated_at: options.generatedAt.toISOString(),
      rules: {
        rate_pct: CORPORATE_TAX_RATE_PCT,
        recurrent_rate_pct: CORPORATE_TAX_RECURRENT_RATE_PCT,
        taxable_base_limit_pct: TAXABLE_BASE_LIMIT_PCT,
        carry_forward_years: CARRY_FORWARD_YEARS,
        computed: options.year >= DEDUCTION_RULES_FROM_YEAR,
      },
      taxpayers,
    },
    details,
  };
}
