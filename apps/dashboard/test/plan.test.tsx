import type { PlanMeasure, ReductionBaseline, TrainingSession, WasteStream } from '@merma/schema';
import { ROLES, type Role } from '@merma/schema/dashboard';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '../src/i18n/index.ts';
import { ApiError, api, type Output } from './support/api.ts';
import {
  appFixtures,
  esrs,
  establishment,
  ids,
  me,
  obligations,
  plan,
  planMeasures,
  reduction,
  trainingSessions,
  wasteStreams,
} from './support/fixtures.ts';
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
    'plan.measures': planMeasures(),
    'compliance.reduction': (input) => reduction(input.year ?? 2026, input.baseline),
    'plan.trainingSessions': (input) => trainingSessions(input.year ?? 2026),
    'compliance.wasteStreams': wasteStreams(),
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

describe('plan document: the order of priorities in writing', () => {
  it('groups the year’s justifications by reason and says how many are still missing; absent from a plan made before it existed', async () => {
    planPage(
      'viewer',
      plan({
        hierarchy: {
          year: 2026,
          below_best: { records: 6, kg: 17.5 },
          justified: { records: 3, kg: 13 },
          by_reason: [
            { reason: 'other', label: 'Another reason', records: 1, kg: 9 },
            { reason: 'no_taker', label: 'No entity or collector takes it', records: 2, kg: 4 },
          ],
          unjustified_count: 3,
        },
      }),
    );
    await renderApp('/plan');
    const section = await screen.findByTestId('plan-hierarchy');
    expect(section).toHaveTextContent(t('plan.doc.hierarchy.title', { year: 2026 }));
    expect(section).toHaveTextContent(t('plan.doc.hierarchy.unjustified', { count: 3 }));
    const rows = within(section)
      .getAllByRole('row')
      .map((r) => r.textContent);
    expect(rows.slice(1)).toEqual(['Another reason19 kg', 'No entity or collector takes it24 kg']);
  });

  it('is absent from a plan made before it existed', async () => {
    planPage('viewer', plan());
    await renderApp('/plan');
    await screen.findByTestId('plan-document');
    expect(screen.queryByTestId('plan-hierarchy')).not.toBeInTheDocument();
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
    // The same year as a spreadsheet's CSV, in the page's language.
    const csv = within(card).getByRole('link', { name: t('plan.esrs.csv', { year: 2025 }) });
    const url = new URL(csv.getAttribute('href') ?? '', 'http://merma.test');
    expect(url.pathname).toBe('/export/esrs-e5.csv');
    expect(Object.fromEntries(url.searchParams)).toEqual({ establishment_id: ids.establishment, mode: 'test', year: '2025', lang: 'en' });
  });

  it('prints alone, with whose it is, and the page prints as the plan again once printed', async () => {
    planPage('viewer', plan());
    // The environment has no print dialog: a stand-in that records the call.
    const print = vi.fn();
    vi.stubGlobal('print', print);
    try {
      const { user } = await renderApp('/plan');
      const card = await screen.findByTestId('esrs');
      expect(within(card).getByTestId('esrs-print-heading')).toHaveTextContent(
        `${t('plan.esrs.printHeading', { name: 'Casa Pepe', cif: 'B12345678' })} · ${t('plan.esrs.testData')}`,
      );
      await user.click(within(card).getByRole('button', { name: t('plan.esrs.print', { year: 2026 }) }));
      expect(print).toHaveBeenCalledTimes(1);
      expect(document.body.dataset.printOnly).toBe('esrs');
      window.dispatchEvent(new Event('afterprint'));
      expect(document.body.dataset.printOnly).toBeUndefined();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('plan: following the measures up, and the training', () => {
  it('shows each measure’s owner, due date and status; an owner changes one and the page sends exactly that', async () => {
    planPage('owner', plan());
    api.use({
      'plan.updateMeasure': (input) => ({
        ...(planMeasures()[1] as PlanMeasure),
        owner: input.owner ?? null,
        due_on: input.due_on ?? null,
        status: input.status ?? 'planned',
        updated_at: '2026-11-29T10:00:00.000Z',
      }),
    });
    const { user } = await renderApp('/plan');
    const card = await screen.findByTestId('plan-measures');
    const rows = await within(card).findAllByRole('row');
    expect(rows[1]).toHaveTextContent(/Rotate stock.*Ana.*December 31, 2026.*In progress/);
    expect(rows[2]).toHaveTextContent(t('plan.followUp.statuses.planned'));
    await user.click(within(card).getByRole('button', { name: t('plan.followUp.editLabel', { measure: planMeasures()[1]?.text ?? '' }) }));
    const dialog = await screen.findByRole('dialog', { name: t('plan.followUp.form.title') });
    await user.type(within(dialog).getByLabelText(t('plan.followUp.form.owner')), '  Luis ');
    await user.type(within(dialog).getByLabelText(t('plan.followUp.form.due')), '2027-01-31');
    await user.click(within(dialog).getByRole('combobox', { name: t('plan.followUp.form.status') }));
    await user.click(await screen.findByRole('option', { name: t('plan.followUp.statuses.in_progress') }));
    await user.click(within(dialog).getByRole('button', { name: t('plan.followUp.form.save') }));
    await waitFor(() =>
      expect(api.last('plan.updateMeasure')).toEqual({
        ...scope,
        lang: 'en',
        measure_id: 'bakery.bake_to_forecast',
        owner: 'Luis',
        due_on: '2027-01-31',
        status: 'in_progress',
        note: null,
      }),
    );
  });

  it('to a viewer: the measures and the training, and no way to change them', async () => {
    planPage('viewer', plan());
    await renderApp('/plan');
    const measures = await screen.findByTestId('plan-measures');
    await within(measures).findAllByRole('row');
    expect(within(measures).queryByRole('button', { name: /Follow up/ })).not.toBeInTheDocument();
    const training = await screen.findByTestId('plan-training');
    expect(await within(training).findByText('Weigh before you bin')).toBeInTheDocument();
    expect(within(training).queryByRole('button', { name: t('plan.training.form.submit') })).not.toBeInTheDocument();
    expect(within(training).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
  });

  it('records a session held, refusing a part of a person, and deletes one after asking', async () => {
    planPage('owner', plan());
    api.use({
      'plan.addTrainingSession': (input) => ({
        id: ids.plan,
        held_on: input.held_on,
        topic: input.topic,
        trainer: input.trainer ?? null,
        attendees: input.attendees,
        attendee_names: input.attendee_names ?? null,
        created_at: '2026-11-29T10:00:00.000Z',
      }),
      'plan.deleteTrainingSession': (input) => ({ ...(trainingSessions()[0] as TrainingSession), id: input.id }),
    });
    const { user } = await renderApp('/plan');
    const card = await screen.findByTestId('plan-training');
    await within(card).findByText('Weigh before you bin');
    await user.type(within(card).getByLabelText(t('plan.training.form.date')), '2026-11-20');
    await user.type(within(card).getByLabelText(t('plan.training.form.topic')), 'FEFO rotation');
    await user.type(within(card).getByLabelText(t('plan.training.form.attendees')), '2.5');
    await user.click(within(card).getByRole('button', { name: t('plan.training.form.submit') }));
    expect(await within(card).findByText(t('plan.training.form.attendeesWhole'))).toBeInTheDocument();
    expect(api.last('plan.addTrainingSession')).toBeUndefined();
    await user.clear(within(card).getByLabelText(t('plan.training.form.attendees')));
    await user.type(within(card).getByLabelText(t('plan.training.form.attendees')), '7');
    await user.click(within(card).getByRole('button', { name: t('plan.training.form.submit') }));
    await waitFor(() =>
      expect(api.last('plan.addTrainingSession')).toEqual({
        ...scope,
        held_on: '2026-11-20',
        topic: 'FEFO rotation',
        trainer: null,
        attendees: 7,
        attendee_names: null,
      }),
    );
    const session = trainingSessions()[0] as TrainingSession;
    await user.click(
      within(card).getByRole('button', { name: t('plan.training.deleteLabel', { topic: session.topic, date: 'October 15, 2026' }) }),
    );
    const confirm = await screen.findByRole('dialog', { name: t('plan.training.deleteTitle', { topic: session.topic }) });
    await user.click(within(confirm).getByRole('button', { name: t('plan.training.delete') }));
    await waitFor(() => expect(api.last('plan.deleteTrainingSession')).toEqual({ ...scope, id: session.id }));
  });

  it('a plan version shows its follow-up as it stood: review date, measures and training', async () => {
    planPage(
      'viewer',
      plan({
        follow_up: {
          review_by: '2027-11-19',
          measures: [{ measure_id: 'storage.fefo_rotation', text: 'Rotate stock.', owner: null, due_on: null, status: 'done' }],
          training: [{ held_on: '2026-10-15', topic: 'Weigh before you bin', trainer: null, attendees: 9 }],
        },
      }),
    );
    await renderApp('/plan');
    const section = await screen.findByTestId('plan-follow-up');
    expect(section).toHaveTextContent(t('plan.followUp.document.reviewBy', { date: 'November 19, 2027' }));
    expect(within(section).getByRole('table', { name: t('plan.followUp.document.title') })).toHaveTextContent(
      /Rotate stock\..*Not assigned.*—.*Done/,
    );
    expect(within(section).getByRole('table', { name: t('plan.followUp.document.training') })).toHaveTextContent(
      /October 15, 2026.*Weigh before you bin.*—.*9/,
    );
  });
});

describe('plan: the whole organisation', () => {
  const line = <T extends object>(over: T) => ({
    waste_kg: 0,
    measured_kg: 0,
    estimated_kg: 0,
    not_stated_kg: 0,
    baseline_kg: null,
    compared_waste_kg: null,
    change_share: null,
    ...over,
  });
  const figures = (year: number, baseline: ReductionBaseline): Output<'compliance.organization'> => ({
    organization_id: ids.organization,
    livemode: false,
    scope: 'organization' as const,
    year,
    baseline,
    establishments: [],
    by_stage: [
      line({
        stage: 'food_services',
        establishments: 1,
        waste_kg: 60,
        measured_kg: 10,
        estimated_kg: 50,
        baseline_kg: 90,
        compared_waste_kg: 60,
        change_share: -0.3333,
        target: { reduction: 0.3, target_kg: 63 },
      }),
      line({ stage: null, establishments: 1, waste_kg: 30, measured_kg: 30, target: null }),
    ],
    total: line({ waste_kg: 90, measured_kg: 40, estimated_kg: 50, baseline_kg: 90, compared_waste_kg: 60, change_share: -0.3333 }),
    esrs: {
      livemode: false,
      year,
      total_kg: 95,
      not_waste_kg: 5,
      waste_kg: 90,
      diverted_from_disposal: { preparation_for_reuse_kg: 0, recycling_kg: 10, other_recovery_kg: 0, total_kg: 10 },
      directed_to_disposal: { incineration_kg: 0, landfill_kg: 80, other_disposal_kg: 0, total_kg: 80 },
      non_recycled_kg: 80,
      non_recycled_share: 0.8889,
      measurement: { measured_kg: 40, estimated_kg: 50, not_stated_kg: 0 },
      measured_share: 0.4444,
    },
  });

  it('shows each stage against its baseline and target, and the organisation, when it has more than one establishment', async () => {
    planPage('viewer', plan());
    api.use({
      'accounts.me': me('viewer', [establishment, { ...establishment, id: ids.otherEstablishment, name: 'Obrador' }]),
      'compliance.organization': (input) => figures(input.year ?? 2026, input.baseline),
    });
    const { user } = await renderApp('/plan');
    const card = await screen.findByTestId('organization-figures');
    const rows = await within(card).findAllByRole('row');
    expect(rows).toHaveLength(4);
    expect(rows[1]).toHaveTextContent(
      /Restaurants and food services.*1.*60 kg.*\(measured 10, estimated 50\).*90 kg.*-33\.3%.*-30%: 63 kg/,
    );
    expect(rows[2]).toHaveTextContent(
      new RegExp(`${t('plan.organization.noStage')}.*30 kg.*${t('plan.organization.noBaseline')}.*—.*${t('plan.reduction.noTarget')}`),
    );
    expect(rows[3]).toHaveTextContent(/Organisation.*2.*90 kg.*-33\.3%.*—$/);
    expect(within(card).getByTestId('organization-esrs')).toHaveTextContent('90 kg of food waste, 88.9% not recycled, 44.4% measured');
    expect(api.last('compliance.organization')).toEqual({ livemode: false, year: 2026, baseline: '2021-2023' });
    await user.click(within(card).getByRole('combobox', { name: t('plan.reduction.baseline') }));
    await user.click(await screen.findByRole('option', { name: t('plan.reduction.baselines.first_year') }));
    await waitFor(() => expect(api.last('compliance.organization')).toEqual({ livemode: false, year: 2026, baseline: 'first_year' }));
  });

  it('is absent, and not asked for, with one establishment', async () => {
    planPage('owner', plan());
    await renderApp('/plan');
    await screen.findByTestId('reduction');
    expect(screen.queryByTestId('organization-figures')).not.toBeInTheDocument();
    expect(api.last('compliance.organization')).toBeUndefined();
  });
});

describe('plan: waste streams and their managers', () => {
  it('shows each stream’s code and manager, and one still without, and a viewer no way to change them', async () => {
    planPage('viewer', plan());
    await renderApp('/plan');
    const card = await screen.findByTestId('waste-streams');
    const rows = await within(card).findAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent(
      /Compostaje \(R3\).*20 01 08 · Biodegradable kitchen and canteen waste.*Compostajes del Sur · NIMA 4100098765/,
    );
    expect(rows[2]).toHaveTextContent(new RegExp(`landfill \\(D1\\).*${t('plan.streams.missing')}`));
    expect(api.last('compliance.wasteStreams')).toEqual({ establishment_id: ids.establishment });
    expect(within(card).queryByRole('button')).not.toBeInTheDocument();
  });

  it('lets an owner choose a code and name the manager, refusing a NIMA that is not 10 digits, and remove one after asking', async () => {
    planPage('owner', plan());
    api.use({
      'compliance.setWasteStream': (input) => ({ ...(wasteStreams()[1] as WasteStream), ...input, updated_at: '2026-11-29T10:00:00.000Z' }),
      'compliance.removeWasteStream': () => ({
        ...(wasteStreams()[0] as WasteStream),
        ler_code: null,
        ler_label: null,
        manager_name: null,
        manager_nima: null,
        updated_at: null,
      }),
    });
    const { user } = await renderApp('/plan');
    const card = await screen.findByTestId('waste-streams');
    await user.click(await within(card).findByRole('button', { name: t('plan.streams.editLabel', { destination: 'landfill' }) }));
    const dialog = await screen.findByRole('dialog', { name: t('plan.streams.form.title', { destination: 'landfill' }) });
    await user.click(within(dialog).getByRole('button', { name: t('plan.streams.form.save') }));
    expect(await within(dialog).findByText(t('plan.streams.form.lerRequired'))).toBeInTheDocument();
    await user.click(within(dialog).getByRole('combobox', { name: t('plan.streams.form.ler') }));
    await user.click(await screen.findByRole('option', { name: /^20 03 01 · Mixed municipal waste/ }));
    await user.type(within(dialog).getByLabelText(t('plan.streams.form.manager')), '  Urbaser ');
    await user.type(within(dialog).getByLabelText(t('plan.streams.form.nima')), '280001234');
    await user.click(within(dialog).getByRole('button', { name: t('plan.streams.form.save') }));
    expect(await within(dialog).findByText(t('plan.streams.form.nimaDigits'))).toBeInTheDocument();
    expect(api.last('compliance.setWasteStream')).toBeUndefined();
    await user.type(within(dialog).getByLabelText(t('plan.streams.form.nima')), '5');
    await user.click(within(dialog).getByRole('button', { name: t('plan.streams.form.save') }));
    await waitFor(() =>
      expect(api.last('compliance.setWasteStream')).toEqual({
        establishment_id: ids.establishment,
        destination_id: ids.landfill,
        ler_code: '20 03 01',
        manager_name: 'Urbaser',
        manager_nima: '2800012345',
      }),
    );
    await findNotification(t('plan.streams.saved'));

    await user.click(within(card).getByRole('button', { name: t('plan.streams.removeLabel', { destination: 'Compostaje' }) }));
    const confirm = await screen.findByRole('dialog', { name: t('plan.streams.removeTitle', { destination: 'Compostaje' }) });
    await user.click(within(confirm).getByRole('button', { name: t('plan.streams.remove') }));
    await waitFor(() =>
      expect(api.last('compliance.removeWasteStream')).toEqual({ establishment_id: ids.establishment, destination_id: ids.compost }),
    );
  });
});

describe('plan: the inspection dossier', () => {
  it('links the download to the year chosen, for the establishment, mode and language of the page', async () => {
    planPage('viewer', plan());
    const { user } = await renderApp('/plan');
    const card = await screen.findByTestId('dossier');
    const link = await within(card).findByRole('link', { name: t('plan.dossier.download', { year: 2026 }) });
    const url = (a: HTMLElement) => new URL(a.getAttribute('href') ?? '', 'http://merma.test');
    expect(url(link).pathname).toBe('/export/dossier.zip');
    // These pages are in English: so are the dossier's texts.
    expect(Object.fromEntries(url(link).searchParams)).toEqual({
      establishment_id: ids.establishment,
      mode: 'test',
      year: '2026',
      lang: 'en',
    });
    expect(link).toHaveAttribute('download');
    await user.click(within(card).getByRole('combobox', { name: t('plan.dossier.year') }));
    await user.click(await screen.findByRole('option', { name: '2024' }));
    const chosen = await within(card).findByRole('link', { name: t('plan.dossier.download', { year: 2024 }) });
    expect(url(chosen).searchParams.get('year')).toBe('2024');
  });
});

describe('plan: reduction against the baseline', () => {
  it('shows the year, the baseline, the change and the stage’s 2030 target, and another baseline when chosen', async () => {
    planPage('viewer', plan());
    const { user } = await renderApp('/plan');
    const card = await screen.findByTestId('reduction');
    const value = (label: string) => within(card).getByRole('rowheader', { name: label }).closest('tr')?.textContent?.replace(label, '');
    await within(card).findByRole('rowheader', { name: t('plan.reduction.change') });
    expect(api.last('compliance.reduction')).toEqual({ ...scope, year: 2026, baseline: '2021-2023' });
    expect(value(t('plan.reduction.stage'))).toBe('restaurants and food services');
    expect(value(t('plan.reduction.wasteToDate', { year: 2026 }))).toBe(
      t('plan.reduction.kgMeasured', { kg: '72', measured: '63', estimated: '9' }),
    );
    expect(value(t('plan.reduction.baselineKg'))).toBe(t('plan.reduction.baselineValue', { kg: '60.3', years: '2021, 2022, 2023' }));
    expect(value(t('plan.reduction.change'))).toBe('+19.3%');
    expect(value(t('plan.reduction.target'))).toBe(t('plan.reduction.targetKg', { share: '-30%', kg: '42.2' }));
    expect(value(t('plan.reduction.perSales'))).toBe('72 kg');
    await user.click(within(card).getByRole('combobox', { name: t('plan.reduction.baseline') }));
    await user.click(await screen.findByRole('option', { name: t('plan.reduction.baselines.first_year') }));
    await waitFor(() => expect(api.last('compliance.reduction')).toEqual({ ...scope, year: 2026, baseline: 'first_year' }));
    await waitFor(() => expect(value(t('plan.reduction.change'))).toBe('-10%'));
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
