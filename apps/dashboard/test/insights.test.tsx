import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { i18n } from '../src/i18n/index.ts';
import { ApiError, api, type Output } from './support/api.ts';
import { analytics, appFixtures, defaultSettings, forecast, ids, noDemand, overviewFixtures } from './support/fixtures.ts';
import { renderApp, t } from './support/render.tsx';

/** Today in Madrid at the tests' "now": the 25th (UTC and New York are still on the 24th). */
const TODAY = '2026-11-25';
const scope = { establishment_id: ids.establishment, livemode: false };

describe('overview', () => {
  it('asks for the range chosen, ending on the establishment’s today, and keeps it in the URL', async () => {
    api.use({ ...appFixtures('owner'), ...overviewFixtures(), 'analytics.get': analytics() });
    const { user, search } = await renderApp('/overview');
    expect(api.last('analytics.get')).toEqual({ ...scope, from: '2026-10-27', to: TODAY, group_by: 'day' });

    await user.click(screen.getByRole('radio', { name: t('overview.ranges.90d') }));
    await waitFor(() => expect(search()).toMatchObject({ range: '90d' }));
    await waitFor(() => expect(api.last('analytics.get')).toEqual({ ...scope, from: '2026-08-28', to: TODAY, group_by: 'week' }));

    await user.click(screen.getByRole('radio', { name: t('overview.ranges.12m') }));
    await waitFor(() => expect(search()).toMatchObject({ range: '12m' }));
    await waitFor(() => expect(api.last('analytics.get')).toEqual({ ...scope, from: '2025-12-01', to: TODAY, group_by: 'month' }));
  });

  it('shows this period against the last one', async () => {
    api.use({ ...appFixtures('viewer'), ...overviewFixtures(), 'analytics.get': analytics() });
    await renderApp('/overview');
    // Today 2.5 kg against 5 kg yesterday: down by half; the week had nothing before to compare with.
    const today = screen.getByRole('region', { name: t('overview.periods.today') });
    expect(within(today).getByTestId('period-today-kg')).toHaveTextContent('2.5 kg');
    expect(today).toHaveTextContent('50%');
    expect(today).toHaveTextContent(t('overview.previous.today', { kg: '5 kg' }));
    expect(screen.getByRole('region', { name: t('overview.periods.week') })).toHaveTextContent(t('overview.noPrevious'));
  });

  it.each([
    ['developer', true],
    ['viewer', false],
  ] as const)('with no records yet, tells a %s how to send the first one', async (role, canCreateKeys) => {
    api.use({ ...appFixtures(role), ...overviewFixtures(), 'analytics.get': analytics() });
    await renderApp('/overview?mode=live');
    const empty = screen.getByText(t('overview.empty.title')).closest<HTMLElement>('[role="alert"]');
    if (!empty) throw new Error('no empty state');
    // The example uses this server's address and the key prefix of the mode on screen.
    expect(empty).toHaveTextContent('curl -X POST http://localhost:3000/api/v1/records');
    expect(empty).toHaveTextContent('Bearer svc_live_');
    if (canCreateKeys) expect(within(empty).getByRole('link', { name: t('overview.empty.keys') })).toBeInTheDocument();
    else {
      expect(within(empty).queryByRole('link')).not.toBeInTheDocument();
      expect(empty).toHaveTextContent(t('overview.empty.askDeveloper'));
    }
  });
});

describe('forecast', () => {
  function forecastPage(historyDays: number) {
    api.use({
      ...appFixtures('owner'),
      'predict.waste': (input) => forecast(input, historyDays),
      'predict.demand': noDemand,
      'predict.settings': defaultSettings,
    });
  }

  it('says there is nothing to forecast before the first records, and no sales yet', async () => {
    forecastPage(0);
    await renderApp('/forecast');
    expect(await screen.findByTestId('forecast-empty')).toHaveTextContent(t('forecast.empty.title'));
    expect(screen.getByTestId('forecast-empty')).toHaveTextContent(t('forecast.empty.body', { mode: t('forecast.empty.modes.test') }));
    expect(await screen.findByText(t('forecast.demand.empty.title'))).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: t('forecast.tableCaption') })).not.toBeInTheDocument();
  });

  it('puts the horizon and the category in the URL and in the query', async () => {
    forecastPage(30);
    const { user, search } = await renderApp('/forecast');
    await waitFor(() => expect(api.last('predict.waste')).toEqual({ ...scope, horizon: 14 }));
    expect(await screen.findByText(t('forecast.methods.holtWinters'))).toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: t('forecast.weeks', { count: 4 }) }));
    await waitFor(() => expect(search()).toMatchObject({ weeks: 4 }));
    await waitFor(() => expect(api.last('predict.waste')).toEqual({ ...scope, horizon: 28 }));

    // The page waits for the new forecast, then shows its filters again.
    await user.click(await screen.findByRole('combobox', { name: t('forecast.category') }));
    await user.click(await screen.findByRole('option', { name: t('categories.fish') }));
    await waitFor(() => expect(search()).toMatchObject({ weeks: 4, category: 'fish' }));
    await waitFor(() => expect(api.last('predict.waste')).toEqual({ ...scope, horizon: 28, food_category: 'fish' }));
    await waitFor(() => expect(api.last('predict.demand')).toEqual({ ...scope, horizon: 1, food_category: 'fish' }));
  });

  it('says why an advice that would have wasted more is worth it: fewer stock-outs, in euros when prices are set', async () => {
    forecastPage(30);
    const product = (name: string, prices: { leftover_cost: number; missed_sale_cost: number } | null) => ({
      product_id: `a1f0c0de-0000-4000-8000-00000000000${name.length}`,
      product_name: name,
      food_category: 'bakery' as const,
      unit: 'unit' as const,
      unit_weight_kg: 0.5,
      model: 'holt-winters' as const,
      method: 'holt-winters',
      history_days: 120,
      notes: [],
      backtest: { metric: 'mae' as const, days: 56, value: 4, seasonal_naive: 6, seven_day_average: 7, mase: 0.6, coverage: 0.95 },
      points: [{ date: '2026-11-25', expected: 80, lower: 60, upper: 100, advised: 92, closed: false, after_closure: false }],
      advice: {
        quantile: 0.67,
        waste_share: 0.05,
        reason: 'prices',
        prices,
        last_4_weeks: {
          days: 28,
          sold: 2000,
          waste_kg: 10,
          advised_waste_kg: 54,
          avoided_kg: -44,
          avoided_pct: -440,
          short_days: 2,
          short_quantity: 12,
          left_over: 108,
          cost: prices ? 52.8 : null,
          seven_day_average: { left_over: 60, short_days: 6, short_quantity: 30, cost: prices ? 48 : null },
        },
      },
    });
    api.use({
      'predict.demand': {
        ...noDemand,
        products: [product('Croissant', { leftover_cost: 0.4, missed_sale_cost: 0.8 }), product('Pan', null)],
      },
    });
    await renderApp('/forecast');
    const section = screen.getByRole('region', { name: t('forecast.demand.title') });
    const [priced, plain] = await within(section).findAllByTestId('demand-trade');
    // 44 kg are 88 croissants of 0.5 kg, at 0.40 € each left over: 35.20 €.
    expect(priced).toHaveTextContent(
      /^More on purpose: with a leftover at €0\.40 and a missed sale at €0\.80, wasting 44 kg \(€35\.20\) more over 4 weeks pays for running short on only 2 of 28 days\.$/,
    );
    expect(plain).toHaveTextContent(
      /^More on purpose: wasting 44 kg more over 4 weeks buys fewer stock-outs, running short on only 2 of 28 days\.$/,
    );
  });

  it('sets the last 4 weeks against the 7-day average: in euros with prices (and their total), else in units', async () => {
    forecastPage(30);
    type Past = Output<'predict.demand'>['products'][number]['advice']['last_4_weeks'];
    const product = (name: string, unit: 'unit' | 'kg', priced: boolean, past: Partial<Past>) => ({
      product_id: `a1f0c0de-0000-4000-8000-00000000000${name.length}`,
      product_name: name,
      food_category: 'bakery' as const,
      unit,
      unit_weight_kg: null,
      model: 'holt-winters' as const,
      method: 'holt-winters',
      history_days: 120,
      notes: [],
      backtest: { metric: 'mae' as const, days: 56, value: 4, seasonal_naive: 6, seven_day_average: 7, mase: 0.6, coverage: 0.95 },
      points: [{ date: '2026-11-25', expected: 40, lower: 30, upper: 50, advised: 44, closed: false, after_closure: false }],
      advice: {
        quantile: 0.67,
        waste_share: null,
        reason: 'prices',
        prices: priced ? { leftover_cost: 0.4, missed_sale_cost: 0.8 } : null,
        last_4_weeks: {
          days: 28,
          sold: 1000,
          waste_kg: 0,
          advised_waste_kg: null,
          avoided_kg: null,
          avoided_pct: null,
          short_days: 2,
          short_quantity: 5,
          left_over: 30,
          cost: null,
          seven_day_average: { left_over: 40, short_days: 7, short_quantity: 12, cost: null },
          ...past,
        },
      },
    });
    api.use({
      'predict.demand': {
        ...noDemand,
        products: [
          // 30 × 0.40 + 5 × 0.80 = 16 € against 40 × 0.40 + 12 × 0.80 = 25.60 €.
          product('Croissant', 'unit', true, {
            cost: 16,
            seven_day_average: { left_over: 40, short_days: 7, short_quantity: 12, cost: 25.6 },
          }),
          // More on purpose: 60 × 0.40 + 1 × 0.80 = 24.80 € against 20 × 0.40 + 20 × 0.80 = 24 €.
          product('Napolitana', 'unit', true, {
            left_over: 60,
            short_quantity: 1,
            cost: 24.8,
            seven_day_average: { left_over: 20, short_days: 9, short_quantity: 20, cost: 24 },
          }),
          product('Pan', 'unit', false, {}),
          product('Queso', 'kg', false, {
            left_over: 3.25,
            short_quantity: 0.5,
            seven_day_average: { left_over: 4, short_days: 2, short_quantity: 1.5, cost: null },
          }),
          product('Empanada', 'unit', true, {
            days: 0,
            cost: 0,
            seven_day_average: { left_over: 0, short_days: 0, short_quantity: 0, cost: 0 },
          }),
        ],
      },
    });
    await renderApp('/forecast');
    const section = screen.getByRole('region', { name: t('forecast.demand.title') });
    const rows = await within(section).findAllByTestId('demand-vs-average');
    expect(rows.map((row) => row.textContent)).toEqual([
      '€9.60 less than the 7-day averageAdvice: €16.00 (30 pcs left over, 5 pcs short)7-day average: €25.60 (40 pcs left over, 12 pcs short)',
      '€0.80 more than the 7-day averageAdvice: €24.80 (60 pcs left over, 1 pcs short)7-day average: €24.00 (20 pcs left over, 20 pcs short)',
      'Advice: 30 pcs left over, 5 pcs short7-day average: 40 pcs left over, 12 pcs short',
      'Advice: 3.3 kg left over, 0.5 kg short7-day average: 4 kg left over, 1.5 kg short',
    ]);
    // Nothing to compare over no day: a dash, and out of the total.
    const cells = within(section).getAllByRole('row')[5]?.querySelectorAll('td');
    expect(cells?.[cells.length - 1]).toHaveTextContent(/^—$/);
    expect(within(section).getByTestId('demand-vs-average-total')).toHaveTextContent(
      /^Last 4 weeks, over 2 products with prices: the advice would have cost €40\.80 in leftovers and missed sales; the 7-day average, €49\.60 — €8\.80 less\.$/,
    );
  });

  it('says Closed for a product when tomorrow is a closed day, and notes a reopening', async () => {
    forecastPage(30);
    const product = (
      name: string,
      point: { closed: boolean; after_closure: boolean },
      notes: Output<'predict.demand'>['products'][number]['notes'],
    ) => ({
      product_id: `a1f0c0de-0000-4000-8000-00000000000${name.length}`,
      product_name: name,
      food_category: 'bakery' as const,
      unit: 'unit' as const,
      unit_weight_kg: null,
      model: 'holt-winters' as const,
      method: 'holt-winters',
      history_days: 120,
      notes,
      backtest: { metric: 'mae' as const, days: 56, value: 4, seasonal_naive: 6, seven_day_average: 7, mase: 0.6, coverage: 0.95 },
      points: [
        {
          date: '2026-11-25',
          expected: point.closed ? 0 : 40,
          lower: 0,
          upper: point.closed ? 0 : 50,
          advised: point.closed ? 0 : 44,
          ...point,
        },
      ],
      advice: {
        quantile: 0.85,
        waste_share: null,
        reason: 'default',
        prices: null,
        last_4_weeks: {
          days: 20,
          sold: 800,
          waste_kg: 0,
          advised_waste_kg: null,
          avoided_kg: null,
          avoided_pct: null,
          short_days: 2,
          short_quantity: 10,
          left_over: 70,
          cost: null,
          seven_day_average: { left_over: 90, short_days: 5, short_quantity: 25, cost: null },
        },
      },
    });
    api.use({
      'predict.demand': {
        ...noDemand,
        products: [
          product('Croissant', { closed: true, after_closure: false }, []),
          product('Pan', { closed: false, after_closure: true }, [{ code: 'after_closure', message: '2026-11-25 follows a closure' }]),
        ],
      },
    });
    await renderApp('/forecast');
    const section = screen.getByRole('region', { name: t('forecast.demand.title') });
    expect(await within(section).findByTestId('demand-closed')).toHaveTextContent(t('forecast.demand.closed'));
    expect(within(section).getAllByTestId('demand-advised')).toHaveLength(1);
    expect(within(section).getByText(t('forecast.demand.notes.afterClosure'))).toBeInTheDocument();
  });

  type DemandNote = Output<'predict.demand'>['products'][number]['notes'][number];
  const included: DemandNote = {
    code: 'today_included',
    message: "today's sales are included: the establishment's day ended at 20:00 (the end of its last shift)",
    closes_at: '20:00',
    reason: 'day_over',
    basis: 'shifts',
  };
  const excluded = (reason: DemandNote['reason'], closes_at: string | null, basis: DemandNote['basis']): DemandNote => ({
    code: 'today_excluded',
    message: "today's sales are not included: the server's words",
    closes_at,
    reason,
    basis,
  });
  it.each([
    { language: 'es', note: included, text: 'Incluye las ventas de hoy: la jornada terminó a las 20:00 (fin del último turno).' },
    { language: 'en', note: included, text: "Includes today's sales: the day ended at 20:00 (end of the last shift)." },
    {
      language: 'es',
      note: { ...included, closes_at: '19:56', basis: 'sales' },
      text: 'Incluye las ventas de hoy: la jornada terminó a las 19:56 (según la hora de las ventas recientes).',
    },
    { language: 'es', note: excluded('day_not_over', '20:00', 'shifts'), text: 'Sin las ventas de hoy: la jornada termina a las 20:00.' },
    { language: 'en', note: excluded('day_not_over', '13:01', 'sales'), text: "Without today's sales: the day ends at 13:01." },
    { language: 'es', note: excluded('not_arrived', '20:00', 'shifts'), text: 'Sin las ventas de hoy: aún no han llegado.' },
    { language: 'en', note: excluded('not_arrived', '20:00', 'shifts'), text: "Without today's sales: they have not arrived yet." },
    { language: 'es', note: excluded('until_midnight', '24:00', 'sales'), text: 'Sin las ventas de hoy: se vende hasta medianoche.' },
    { language: 'en', note: excluded('until_midnight', '24:00', 'sales'), text: "Without today's sales: sales run until midnight." },
    {
      language: 'es',
      note: excluded('unknown', null, 'none'),
      text: 'Sin las ventas de hoy: no se sabe cuándo acaba la jornada (ningún turno lo dice y no hay ventas recientes).',
    },
    {
      language: 'en',
      note: excluded('unknown', null, 'none'),
      text: "Without today's sales: when the day ends is unknown (no shift tells it, and there are no recent sales).",
    },
    // A note without its facts (a server before them): its words, as for any code the page does not know.
    {
      language: 'es',
      note: { code: 'today_excluded', message: "today's sales are not included: the server's words" },
      text: "today's sales are not included: the server's words",
    },
  ] as const)('says once, above the products, whether today’s sales are in ($language): $text', async ({ language, note, text }) => {
    forecastPage(30);
    await i18n.changeLanguage(language);
    const product = (name: string) => ({
      product_id: `a1f0c0de-0000-4000-8000-00000000000${name.length}`,
      product_name: name,
      food_category: 'bakery' as const,
      unit: 'unit' as const,
      unit_weight_kg: null,
      model: 'holt-winters' as const,
      method: 'holt-winters',
      history_days: 120,
      notes: [note, { code: 'no_waste' as const, message: 'no waste recorded' }],
      backtest: { metric: 'mae' as const, days: 56, value: 4, seasonal_naive: 6, seven_day_average: 7, mase: 0.6, coverage: 0.95 },
      points: [{ date: '2026-11-25', expected: 40, lower: 30, upper: 50, advised: 44, closed: false, after_closure: false }],
      advice: {
        quantile: 0.85,
        waste_share: null,
        reason: 'default',
        prices: null,
        last_4_weeks: {
          days: 28,
          sold: 1000,
          waste_kg: 0,
          advised_waste_kg: null,
          avoided_kg: null,
          avoided_pct: null,
          short_days: 2,
          short_quantity: 5,
          left_over: 30,
          cost: null,
          seven_day_average: { left_over: 40, short_days: 7, short_quantity: 12, cost: null },
        },
      },
    });
    api.use({ 'predict.demand': { ...noDemand, products: [product('Croissant'), product('Pan')] } });
    await renderApp('/forecast');
    const section = screen.getByRole('region', { name: t('forecast.demand.title') });
    const [today, ...more] = await within(section).findAllByTestId('demand-today');
    expect(more).toHaveLength(0);
    expect(today?.textContent).toBe(text);
    // Above the table, and not under each product (whose other notes stay).
    const table = within(section).getByRole('table');
    expect(today?.compareDocumentPosition(table)).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
    expect(within(table).queryByText(note.message)).not.toBeInTheDocument();
    expect(within(table).getAllByText(t('forecast.demand.noWaste'))).toHaveLength(2);
  });

  it('shows a failed production advice in words, with a way to try again', async () => {
    forecastPage(30);
    let refusals = 0;
    api.use({
      'predict.demand': () => {
        refusals += 1;
        if (refusals === 1) throw new ApiError('plan_required', 'The demand forecast needs the pro plan');
        return noDemand;
      },
    });
    const { user } = await renderApp('/forecast');
    const section = screen.getByRole('region', { name: t('forecast.demand.title') });
    const alert = await within(section).findByRole('alert');
    expect(alert).toHaveTextContent(t('errors.codes.plan_required'));
    await user.click(within(alert).getByRole('button', { name: t('common.retry') }));
    expect(await within(section).findByText(t('forecast.demand.empty.title'))).toBeInTheDocument();
  });

  it('shows the service level, and lets an owner set it in whole percents and put the default back', async () => {
    forecastPage(30);
    let settings: Output<'predict.settings'> = defaultSettings;
    api.use({
      'predict.settings': () => settings,
      'predict.updateSettings': (input) => {
        settings =
          input.settings.service_level === null
            ? defaultSettings
            : { service_level: input.settings.service_level, is_default: false, updated_at: '2026-11-24T10:00:00.000Z' };
        return settings;
      },
    });
    const { user } = await renderApp('/forecast');
    const section = screen.getByRole('region', { name: t('forecast.demand.title') });
    expect(await within(section).findByText(t('forecast.serviceLevel.currentDefault', { percent: '85%' }))).toBeInTheDocument();
    const demandCalls = api.inputs('predict.demand').length;
    await user.click(within(section).getByRole('button', { name: t('forecast.serviceLevel.change') }));
    const input = within(section).getByLabelText(t('forecast.serviceLevel.label'));
    await user.clear(input);
    await user.type(input, '92');
    await user.click(within(section).getByRole('button', { name: t('common.save') }));
    await waitFor(() => expect(api.last('predict.updateSettings')).toEqual({ ...scope, settings: { service_level: 0.92 } }));
    expect(await within(section).findByText(t('forecast.serviceLevel.current', { percent: '92%' }))).toBeInTheDocument();
    // The advice is asked for again, at the new level.
    await waitFor(() => expect(api.inputs('predict.demand').length).toBeGreaterThan(demandCalls));
    await user.click(within(section).getByRole('button', { name: t('forecast.serviceLevel.change') }));
    await user.click(within(section).getByRole('button', { name: t('forecast.serviceLevel.reset', { percent: '85%' }) }));
    await waitFor(() => expect(api.last('predict.updateSettings')).toEqual({ ...scope, settings: { service_level: null } }));
    expect(await within(section).findByText(t('forecast.serviceLevel.currentDefault', { percent: '85%' }))).toBeInTheDocument();
  });

  it('shows a viewer the service level without a way to change it', async () => {
    forecastPage(30);
    api.use({
      ...appFixtures('viewer'),
      'predict.settings': { service_level: 0.7, is_default: false, updated_at: '2026-11-24T10:00:00.000Z' },
    });
    await renderApp('/forecast');
    const section = screen.getByRole('region', { name: t('forecast.demand.title') });
    expect(await within(section).findByText(t('forecast.serviceLevel.current', { percent: '70%' }))).toBeInTheDocument();
    expect(within(section).queryByRole('button', { name: t('forecast.serviceLevel.change') })).not.toBeInTheDocument();
  });
});
