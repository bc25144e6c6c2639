import { ROLES, type Role } from '@merma/schema/dashboard';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { i18n } from '../src/i18n/index.ts';
import { ApiError, api } from './support/api.ts';
import { appFixtures, esrs, ids, obligations, plan } from './support/fixtures.ts';
import { findNotification, renderApp, t as tMain } from './support/render.tsx';

/** The Prevention plan page's messages (their own namespace, `plan`). */
const t = i18n.getFixedT(null, 'plan');

const scope = { establishment_id: ids.establishment, livemode: false };
const NEW_PLAN = 'e3b1be0a-7c0c-4a0e-8eff-000000000009';

function planPage(role: Role, current: ReturnType<typeof plan> | null) {
  api.use({
    ...appFixtures(role),
    'plan.get': current,
    'plan.history': { data: current ? [{ ...current }] : [], next_cursor: null },
    'compliance.obligations': obligations(),
    'compliance.esrsE5': (input) => esrs(input.year ?? 2026),
  });
}

describe('plan: who may generate it', () => {
  const generates: Record<Role, boolean> = { owner: true, admin: true, developer: true, viewer: false };
  it.each(ROLES)('%s, before the first plan', async (role) => {
    planPage(role, null);
    await renderApp('/plan');
    expect(api.last('plan.get')).toEqual({ ...scope, lang: 'en' });
    expect(screen.getByText(t('plan.page.emptyTitle'))).toBeInTheDocument();
    expect(screen.getByText(generates[role] ? t('plan.page.empty') : t('plan.page.emptyViewer'))).toBeInTheDocument();
    const generate = screen.queryByRole('button', { name: t('plan.page.generate') });
    if (generates[role]) expect(generate).toBeInTheDocument();
    else expect(generate).not.toBeInTheDocument();
    // Nothing to print yet.
    expect(screen.queryByRole('button', { name: t('plan.page.print') })).not.toBeInTheDocument();
  });
});

describe('plan: the document', () => {
  it('is marked as test data in test mode, and not in live mode', async () => {
    planPage('viewer', plan());
    await renderApp('/plan');
    expect(screen.getByRole('heading', { name: t('plan.doc.title', { establishment: 'Casa Pepe' }) })).toBeInTheDocument();
    expect(screen.getByTestId('plan-test-marker')).toHaveTextContent(t('plan.doc.testMarker'));
    expect(screen.getByTestId('plan-cif')).toHaveTextContent('B12345678');
  });

  it('has no test-data marker in live mode', async () => {
    planPage('viewer', plan());
    await renderApp('/plan?mode=live');
    expect(api.last('plan.get')).toEqual({ ...scope, livemode: true, lang: 'en' });
    expect(screen.getByRole('heading', { name: t('plan.doc.title', { establishment: 'Casa Pepe' }) })).toBeInTheDocument();
    expect(screen.queryByTestId('plan-test-marker')).not.toBeInTheDocument();
  });
});

describe('plan: its version', () => {
  it('names its number, its SHA-256 and the version it replaces with the total before and now', async () => {
    const previous = {
      id: NEW_PLAN,
      generated_at: '2026-10-20T10:00:00.000Z',
      sha256: 'cd'.repeat(32),
      changes: {
        period_from: '2025-10-20',
        period_to: '2026-10-19',
        total_kg: { from: 1500, to: 1234.5 },
        total_records: { from: 400, to: 321 },
        below_feed_kg: { from: 1000, to: 934.5 },
        hotspots_added: [],
        hotspots_removed: [],
        agreements_added: [],
        agreements_removed: [],
        baseline_year: null,
      },
    };
    planPage('viewer', plan({ version: 2, previous }));
    await renderApp('/plan');
    const line = await screen.findByTestId('plan-version');
    expect(line).toHaveTextContent(t('plan.doc.version', { version: 2, sha256: 'ab'.repeat(32) }));
    expect(line).toHaveTextContent(/Replaces the version of .*2026.*: total recorded 1,500 kg → 1,234\.5 kg\./);
  });

  it('says a plan stored before versions were hashed has no digest', async () => {
    planPage('viewer', plan({ sha256: null }));
    await renderApp('/plan');
    expect(await screen.findByTestId('plan-version')).toHaveTextContent(t('plan.doc.versionUnhashed', { version: 1 }));
  });
});

describe('plan: generating one', () => {
  it('sends the scope and the page’s language, then shows the new plan by its id in the URL', async () => {
    planPage('developer', null);
    api.use({ 'plan.generate': () => plan({ id: NEW_PLAN }) });
    const { user, search } = await renderApp('/plan');
    api.use({ 'plan.get': (input) => (input.id === NEW_PLAN ? plan({ id: NEW_PLAN }) : null) });
    await user.click(screen.getByRole('button', { name: t('plan.page.generate') }));
    await waitFor(() => expect(api.last('plan.generate')).toEqual({ ...scope, lang: 'en' }));
    await findNotification(t('plan.page.generated'));
    await waitFor(() => expect(search()).toMatchObject({ plan: NEW_PLAN }));
    await waitFor(() => expect(api.last('plan.get')).toEqual({ ...scope, lang: 'en', id: NEW_PLAN }));
    expect(await screen.findByRole('heading', { name: t('plan.doc.title', { establishment: 'Casa Pepe' }) })).toBeInTheDocument();
  });

  it('raises a refusal as a notification in words, and stays empty', async () => {
    planPage('owner', null);
    api.use({
      'plan.generate': () => {
        throw new ApiError('rate_limited', 'Too many plans');
      },
    });
    const { user, search } = await renderApp('/plan');
    await user.click(screen.getByRole('button', { name: t('plan.page.generate') }));
    const notification = await findNotification(tMain('errors.codes.rate_limited'));
    expect(notification).toHaveTextContent(tMain('errors.title'));
    expect(search()).not.toHaveProperty('plan');
    expect(screen.getByText(t('plan.page.emptyTitle'))).toBeInTheDocument();
  });
});

describe('plan: donations', () => {
  const donations = {
    agreements: [
      {
        id: 'a0000000-0000-4000-8000-000000000001',
        entity_name: 'Banco del Barrio',
        valid_from: '2026-01-01',
        valid_until: '2027-06-30',
        status: 'expired' as const,
      },
    ],
    donated_kg: 12.5,
    donated_share: 0.1,
    offered_kg: 20,
    accepted_kg: 12.5,
    refused_kg: 7.5,
    refusals: [
      {
        donation_id: 'd0000000-0000-4000-8000-000000000001',
        offered_at: '2026-11-10T10:00:00.000Z',
        entity_name: 'Banco del Barrio',
        description: 'Tarta de queso',
        kg: 7.5,
        reason: 'Sin frío',
        rerouted_to: 'animal_feed',
        rerouted_to_label: 'Animal feed',
      },
    ],
    justification: 'No signed donation agreement is in force for this establishment.',
  };

  it('shows the agreements, the kilos, each refusal with where it went, and the justification the law asks for', async () => {
    planPage('viewer', plan({ donations }));
    await renderApp('/plan');
    const section = await screen.findByTestId('plan-donations');
    expect(section).toHaveTextContent(t('plan.doc.donations.title'));
    expect(section).toHaveTextContent('Banco del Barrio');
    expect(section).toHaveTextContent(t('plan.doc.donations.statuses.expired'));
    expect(screen.getByRole('table', { name: t('plan.doc.donations.refusals') })).toHaveTextContent(
      /Tarta de queso.*Sin frío.*Animal feed/,
    );
    expect(screen.getByTestId('plan-donation-justification')).toHaveTextContent(donations.justification);
  });

  it('is absent from a plan made before it existed', async () => {
    planPage('viewer', plan());
    await renderApp('/plan');
    await screen.findByTestId('plan-document');
    expect(screen.queryByTestId('plan-donations')).not.toBeInTheDocument();
  });
});

describe('plan: does the law oblige you?', () => {
  it('shows each answer with its provisions, the facts it rests on, and to a viewer no way to change them', async () => {
    planPage('viewer', plan());
    await renderApp('/plan');
    const card = await screen.findByTestId('obligations');
    expect(api.last('compliance.obligations')).toEqual({ establishment_id: ids.establishment, lang: 'en' });
    expect(within(card).getByRole('heading', { name: t('plan.obligations.title') })).toBeInTheDocument();
    const plan_ = within(card).getByTestId('obligation-prevention_plan');
    expect(plan_).toHaveTextContent(t('plan.obligations.applies.yes'));
    expect(plan_).toHaveTextContent('Ley 1/2025, art. 6.4.a · Ley 1/2025, art. 6.4.c');
    expect(card).toHaveTextContent(
      '56.29 — Other food service activities (canteens and contract catering) (restaurants and food services)',
    );
    expect(card).toHaveTextContent('2 establishments under CIF B12345678: 1,500 m² in all.');
    expect(card).toHaveTextContent(t('plan.obligations.notMicro'));
    expect(within(card).queryByRole('button', { name: t('plan.obligations.edit') })).not.toBeInTheDocument();
  });

  it('says what is missing to settle it', async () => {
    planPage('viewer', plan());
    api.use({
      'compliance.obligations': obligations({
        missing: ['headcount', 'annual_turnover_eur', 'balance_sheet_eur'],
        obligations: obligations().obligations.map((o) =>
          o.key === 'hierarchy' ? o : { ...o, applies: 'unknown', reason: 'size_missing' },
        ),
      }),
    });
    await renderApp('/plan');
    expect(await screen.findByTestId('obligations-missing')).toHaveTextContent(
      t('plan.obligations.missing', {
        facts: [
          t('plan.obligations.facts.headcount'),
          t('plan.obligations.facts.annual_turnover_eur'),
          t('plan.obligations.facts.balance_sheet_eur'),
        ].join(', '),
      }),
    );
    expect(screen.getByTestId('obligation-prevention_plan')).toHaveTextContent(t('plan.obligations.applies.unknown'));
  });

  it('lets an owner give the facts, read as typed (a pasted 1.234,5 in Spanish), and sends both', async () => {
    await i18n.changeLanguage('es');
    try {
      planPage('owner', plan({ lang: 'es' }));
      api.use({
        'compliance.obligations': obligations({
          lang: 'es',
          organization: { headcount: null, annual_turnover_eur: null, balance_sheet_eur: null, microenterprise: null },
        }),
        'compliance.updateOrganization': (input) => input,
        'compliance.updateEstablishment': () => ({
          id: ids.establishment,
          name: 'Casa Pepe',
          cif: 'B12345678',
          sector: 'horeca',
          timezone: 'Europe/Madrid',
          nace_code: '56.10',
          stage: 'food_services',
          floor_area_m2: 1234.5,
        }),
      });
      const { user } = await renderApp('/plan');
      await user.click(await screen.findByRole('button', { name: t('plan.obligations.edit', { lng: 'es' }) }));
      const dialog = await screen.findByRole('dialog');
      await user.type(within(dialog).getByLabelText(t('plan.obligations.form.headcount', { lng: 'es' })), '45');
      await user.type(within(dialog).getByLabelText(t('plan.obligations.form.turnover', { lng: 'es' })), '3.200.000');
      await user.clear(within(dialog).getByLabelText(t('plan.obligations.form.area', { lng: 'es' })));
      await user.click(within(dialog).getByLabelText(t('plan.obligations.form.area', { lng: 'es' })));
      await user.paste('1.234,5');
      // Found by its CNAE code without the dot, and only it.
      const activity = within(dialog).getByRole('combobox', { name: t('plan.obligations.form.activity', { lng: 'es' }) });
      await user.clear(activity);
      await user.type(activity, '5610');
      expect(await within(await screen.findByRole('listbox')).findAllByRole('option')).toHaveLength(1);
      await user.click(await screen.findByRole('option', { name: '56.10 — Restaurantes y puestos de comidas' }));
      await user.click(within(dialog).getByRole('button', { name: t('plan.obligations.form.save', { lng: 'es' }) }));
      await waitFor(() => expect(api.last('compliance.updateEstablishment')).toBeDefined());
      expect(api.last('compliance.updateOrganization')).toEqual({ headcount: 45, annual_turnover_eur: 3_200_000, balance_sheet_eur: null });
      expect(api.last('compliance.updateEstablishment')).toEqual({
        establishment_id: ids.establishment,
        nace_code: '56.10',
        floor_area_m2: 1234.5,
      });
      await findNotification(t('plan.obligations.saved', { lng: 'es' }));
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('refuses a negative area under its field and sends nothing', async () => {
    planPage('admin', plan());
    const { user } = await renderApp('/plan');
    await user.click(await screen.findByRole('button', { name: t('plan.obligations.edit') }));
    const dialog = await screen.findByRole('dialog');
    const area = within(dialog).getByLabelText(t('plan.obligations.form.area'));
    await user.clear(area);
    await user.type(area, '-5');
    await user.click(within(dialog).getByRole('button', { name: t('plan.obligations.form.save') }));
    expect(await within(dialog).findByText(tMain('numbers.min', { min: 0 }))).toBeInTheDocument();
    expect(api.last('compliance.updateOrganization')).toBeUndefined();
    expect(api.last('compliance.updateEstablishment')).toBeUndefined();
  });
});

describe('plan: waste in ESRS E5-5 terms', () => {
  it('shows the year to date by category of operation, and another year when chosen', async () => {
    planPage('viewer', plan());
    const { user } = await renderApp('/plan');
    const card = await screen.findByTestId('esrs');
    await within(card).findByRole('rowheader', { name: t('plan.esrs.waste') });
    expect(api.last('compliance.esrsE5')).toEqual({ ...scope, year: 2026 });
    const value = (label: string) => within(card).getByRole('rowheader', { name: label }).closest('tr')?.textContent?.replace(label, '');
    expect(value(t('plan.esrs.waste'))).toBe('16 kg');
    expect(value(t('plan.esrs.recycling'))).toBe('8 kg');
    expect(value(t('plan.esrs.landfill'))).toBe('5 kg');
    expect(value(t('plan.esrs.nonRecycled'))).toBe('8 kg (50%)');
    expect(value(t('plan.esrs.measured'))).toBe(t('plan.esrs.measuredSplit', { share: '75%', estimated: '3', notStated: '1' }));
    await user.click(within(card).getByRole('combobox', { name: t('plan.esrs.year') }));
    await user.click(await screen.findByRole('option', { name: '2025' }));
    await waitFor(() => expect(api.last('compliance.esrsE5')).toEqual({ ...scope, year: 2025 }));
  });
});

describe('plan: the order of priorities, justified', () => {
  it('counts the records sent lower, by reason, and links each one still without a justification to the record', async () => {
    planPage('viewer', plan());
    const { user } = await renderApp('/plan');
    const card = await screen.findByTestId('hierarchy');
    expect(
      await within(card).findByText(t('plan.hierarchy.summary', { below: 3, kg: '5 kg', justified: 2, missing: 1 })),
    ).toBeInTheDocument();
    expect(api.last('compliance.hierarchy')).toEqual({ ...scope, year: 2026 });
    expect(within(card).getByRole('rowheader', { name: tMain('hierarchyReasons.no_taker') })).toBeInTheDocument();
    const link = within(card).getByRole('link', { name: /Compostaje/ });
    const href = new URL(link.getAttribute('href') ?? '', 'http://localhost');
    expect(href.pathname).toMatch(/\/records$/);
    expect(href.searchParams.get('record')).toBe(ids.record);
    // Another year is asked for when chosen.
    await user.click(within(card).getByRole('combobox', { name: t('plan.hierarchy.year') }));
    await user.click(await screen.findByRole('option', { name: '2025' }));
    await waitFor(() => expect(api.last('compliance.hierarchy')).toEqual({ ...scope, year: 2025 }));
  });
});
