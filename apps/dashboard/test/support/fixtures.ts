import type { Role } from '@merma/schema/dashboard';
import type { Fixtures, Output } from './api.ts';

/**
 * The data the pages are shown: one organisation with one establishment in Madrid, its catalogue
 * and shifts. Every builder is typed by the procedure whose answer it is.
 */

export const ids = {
  user: '0b7a1d6e-1c55-4a4e-9a43-2f3f7e6f1a01',
  organization: '0b7a1d6e-1c55-4a4e-9a43-2f3f7e6f1a02',
  establishment: '0b7a1d6e-1c55-4a4e-9a43-2f3f7e6f1a03',
  otherEstablishment: '0b7a1d6e-1c55-4a4e-9a43-2f3f7e6f1a04',
  donation: '5d1f1a0c-7f0e-4c0a-8a55-000000000001',
  compost: '5d1f1a0c-7f0e-4c0a-8a55-000000000002',
  /** A destination the catalogue fixture lacks: shown by its code. */
  landfill: '5d1f1a0c-7f0e-4c0a-8a55-000000000003',
  overproduction: '6a2e2b1d-8f1f-4d1b-9b66-000000000001',
  expired: '6a2e2b1d-8f1f-4d1b-9b66-000000000002',
  lunch: '7b3f3c2e-9a2a-4e2c-8c77-000000000001',
  dinner: '7b3f3c2e-9a2a-4e2c-8c77-000000000002',
  record: '8c4a4d3f-0b3b-4f3d-9d88-000000000001',
  key: '9d5b5e4a-1c4c-4a4e-8e99-000000000001',
  webhook: 'ae6c6f5b-2d5d-4b5f-9faa-000000000001',
  member: 'bf7d7a6c-3e6e-4c6a-8abb-000000000001',
  invitation: 'c08e8b7d-4f7f-4d7b-9bcc-000000000001',
  plan: 'd19f9c8e-5a8a-4e8c-8cdd-000000000001',
} as const;

/** The establishment's zone: east of UTC, so that its "today" is not the UTC one near midnight. */
export const TIMEZONE = 'Europe/Madrid';

type Me = NonNullable<Output<'accounts.me'>>;

export const establishment: Me['establishments'][number] = {
  id: ids.establishment,
  name: 'Casa Pepe',
  cif: 'B12345678',
  timezone: TIMEZONE,
};

export function me(role: Role, establishments: Me['establishments'] = [establishment]): Me {
  return {
    user: { id: ids.user, email: 'ana@example.com', name: 'Ana' },
    organization: { id: ids.organization, name: 'Grupo Pepe', plan: 'enterprise', api_enabled: true },
    role,
    organizations: [{ id: ids.organization, name: 'Grupo Pepe', role }],
    establishments,
    csrf_token: 'csrf-token',
    public_url: 'http://localhost:3000',
  };
}

export const catalog: Output<'catalog.get'> = {
  causes: [
    { id: ids.overproduction, nombre: 'Sobreproducción', icono: 'chef', activo: true },
    { id: ids.expired, nombre: 'Caducado', icono: 'calendar', activo: true },
  ],
  destinations: [
    { id: ids.donation, nombre: 'Donación', orden: 1, es_recuperacion: true, code: 'donation', wfd_operation: 'not_waste' },
    { id: ids.compost, nombre: 'Compostaje', orden: 4, es_recuperacion: true, code: 'compost', wfd_operation: 'R3' },
  ],
};

export const shifts: Output<'shifts.list'> = [
  { id: ids.lunch, name: 'Comidas', start_time: '12:00', end_time: '16:00', archived: false },
  { id: ids.dinner, name: 'Cenas', start_time: '20:00', end_time: '23:30', archived: false },
];

export function wasteRecord(over: Partial<Output<'records.create'>> = {}): Output<'records.create'> {
  return {
    id: ids.record,
    establishment_id: ids.establishment,
    livemode: false,
    food_category: 'bakery',
    weight_kg: 1.25,
    destino_id: ids.donation,
    causa_id: ids.overproduction,
    product_name: 'Barra de pan',
    waste_stage: 'service',
    shift_id: ids.lunch,
    session_id: null,
    notes: null,
    photo_url: null,
    product_id: null,
    measurement_method: 'direct_weighing',
    scale_id: null,
    estimated: false,
    edible: null,
    tare_kg: null,
    hierarchy_reason: null,
    hierarchy_note: null,
    transfer_document_ref: null,
    source: 'dashboard',
    record_hash: 'a'.repeat(64),
    created_at: '2026-11-24T13:05:00.000Z',
    occurred_at: '2026-11-24T13:00:00.000Z',
    supersedes_id: null,
    ...over,
  };
}

/** A row of the records table: a record and the correction that replaced it (none). */
export function recordRow(over: Partial<Output<'records.list'>['data'][number]> = {}): Output<'records.list'>['data'][number] {
  return { ...wasteRecord(), superseded_by: null, ...over };
}

export function recordsPage(rows: Output<'records.list'>['data']): Output<'records.list'> {
  return {
    data: rows,
    next_cursor: null,
    total: rows.length,
    total_kg: rows.reduce((sum, r) => sum + r.weight_kg, 0),
  };
}

export function apiKey(over: Partial<Output<'keys.list'>[number]> = {}): Output<'keys.list'>[number] {
  return {
    id: ids.key,
    name: 'TPV cocina',
    mode: 'test',
    redacted: 'svc_test_…a1B2',
    permissions: ['*'],
    created_by: { id: ids.user, email: 'ana@example.com', name: 'Ana' },
    created_at: '2026-11-01T09:00:00.000Z',
    last_used_at: null,
    revoked_at: null,
    ...over,
  };
}

export function webhook(over: Partial<Output<'webhooks.list'>[number]> = {}): Output<'webhooks.list'>[number] {
  return {
    id: ids.webhook,
    url: 'https://erp.example.com/merma',
    events: ['record.created'],
    status: 'active',
    description: null,
    consecutive_failures: 0,
    created_at: '2026-11-01T09:00:00.000Z',
    deactivated_at: null,
    deactivation_reason: null,
    previous_secret_expires_at: null,
    ...over,
  };
}

export const inbound: Output<'inbound.endpoint'> = {
  url: 'http://localhost:3000/api/v1/webhooks/inbound',
  events: ['inventory.loss'],
  sample: { event: 'inventory.loss', payload: { source: 'my-pos', quantity_kg: 2.5 } },
};

type Member = Output<'team.get'>['members'][number];
type Invitation = Output<'team.get'>['invitations'][number];

export const luis: Member = {
  user_id: ids.member,
  email: 'luis@example.com',
  name: 'Luis',
  role: 'developer',
  joined_at: '2026-02-10T09:00:00.000Z',
};

export const pendingInvitation: Invitation = {
  id: ids.invitation,
  email: 'marta@example.com',
  role: 'viewer',
  invited_by: 'ana@example.com',
  created_at: '2026-11-20T09:00:00.000Z',
  expires_at: '2026-11-27T09:00:00.000Z',
};

/** The team as `role` (Ana, the user) sees it: Ana, Luis and an invitation for Marta. */
export function team(role: Role): Output<'team.get'> {
  return {
    members: [{ user_id: ids.user, email: 'ana@example.com', name: 'Ana', role, joined_at: '2026-01-10T09:00:00.000Z' }, luis],
    invitations: [pendingInvitation],
  };
}

/** What every page inside the app asks for, for a member of `role`. */
export function appFixtures(role: Role): Fixtures {
  return {
    'accounts.me': me(role),
    'catalog.get': catalog,
    'shifts.list': shifts,
    'compliance.hierarchy': (input: { year?: number }) => hierarchy(input.year ?? 2026),
  };
}

/** A year against a baseline: the restaurant of the server's worked example (compliance-reduction.test.ts). */
export function reduction(year = 2026, baseline: '2021-2023' | '2020' | 'first_year' = '2021-2023'): Output<'compliance.reduction'> {
  return {
    establishment_id: ids.establishment,
    livemode: false,
    stage: 'food_services',
    target: { reduction: 0.3, target_kg: baseline === 'first_year' ? 56 : 42.233 },
    year: {
      year,
      period: { from: `${year}-01-01`, to: `${year}-11-29` },
      complete: false,
      waste_kg: 72,
      measured_kg: 63,
      estimated_kg: 9,
      not_stated_kg: 0,
    },
    baseline:
      baseline === 'first_year'
        ? { kind: baseline, years: [2022], years_with_records: [2022], waste_kg: 80 }
        : { kind: baseline, years: [2021, 2022, 2023], years_with_records: [2021, 2022, 2023], waste_kg: 60.333 },
    change_share: baseline === 'first_year' ? -0.1 : 0.1934,
    sales: { sales_eur: 1000, unpriced_units: 30, waste_kg_per_1000_eur: 72 },
  };
}

/** The plan's measures as followed up: one assigned and in progress, one still planned. */
export function planMeasures(): Output<'plan.measures'> {
  return [
    {
      measure_id: 'storage.fefo_rotation',
      text: 'Rotate stock first-expired-first-out and label every container with its opening date.',
      owner: 'Ana',
      due_on: '2026-12-31',
      status: 'in_progress',
      note: null,
      updated_at: '2026-11-20T10:00:00.000Z',
      in_latest_plan: true,
    },
    {
      measure_id: 'bakery.bake_to_forecast',
      text: 'Bake to the forecast in several batches; sell or donate day-old bread and use it in breadcrumbs or puddings.',
      owner: null,
      due_on: null,
      status: 'planned',
      note: null,
      updated_at: null,
      in_latest_plan: true,
    },
  ];
}

/** A year's training: one session. */
export function trainingSessions(year = 2026): Output<'plan.trainingSessions'> {
  return [
    {
      id: '7d0c7f4e-2b7a-4f43-9d0e-5a6a4f1f0b11',
      held_on: `${year}-10-15`,
      topic: 'Weigh before you bin',
      trainer: 'Ana',
      attendees: 9,
      attendee_names: null,
      created_at: `${year}-10-15T10:00:00.000Z`,
    },
  ];
}

/** The waste streams: compost described with its code and manager, landfill not yet. */
export function wasteStreams(): Output<'compliance.wasteStreams'> {
  return [
    {
      destination_id: ids.compost,
      destination_code: 'compost',
      wfd_operation: 'R3',
      ler_code: '20 01 08',
      ler_label: {
        es: 'Residuos biodegradables de cocinas y restaurantes (fracciones recogidas selectivamente)',
        en: 'Biodegradable kitchen and canteen waste (separately collected fractions)',
      },
      manager_name: 'Compostajes del Sur',
      manager_nima: '4100098765',
      updated_at: '2026-11-20T10:00:00.000Z',
    },
    {
      destination_id: ids.landfill,
      destination_code: 'landfill',
      wfd_operation: 'D1',
      ler_code: null,
      ler_label: null,
      manager_name: null,
      manager_nima: null,
      updated_at: null,
    },
  ];
}

/** A year in which bakery reached donation, and 2 kg of bread went to compost without a reason. */
export function hierarchy(year = 2026): Output<'compliance.hierarchy'> {
  return {
    establishment_id: ids.establishment,
    livemode: false,
    year,
    period: { from: `${year}-01-01`, to: `${year}-11-25` },
    best_by_category: [{ food_category: 'bakery', destino_id: ids.donation, code: 'donation' }],
    below_best: { records: 3, kg: 5 },
    justified: { records: 2, kg: 3 },
    by_reason: [{ reason: 'no_taker', records: 2, kg: 3 }],
    unjustified_count: 1,
    unjustified: [
      {
        id: ids.record,
        occurred_at: `${year}-05-01T10:00:00.000Z`,
        food_category: 'bakery',
        weight_kg: 2,
        destino_id: ids.compost,
        best_destino_id: ids.donation,
      },
    ],
  };
}

export function plan(over: Partial<NonNullable<Output<'plan.get'>>> = {}): NonNullable<Output<'plan.get'>> {
  return {
    id: ids.plan,
    establishment_id: ids.establishment,
    generated_at: '2026-11-20T10:00:00.000Z',
    lang: 'en',
    period: { from: '2025-11-20', to: '2026-11-19' },
    total_kg: 1234.5,
    total_records: 321,
    by_stage: [{ key: 'service', label: 'Service', kg: 800, share: 0.648 }],
    by_category: [{ key: 'bakery', label: 'Bakery', kg: 600, share: 0.486 }],
    by_cause: [],
    by_shift: [],
    destinations: [{ key: 'donation', label: 'Donation', kg: 300, share: 0.243, orden: 1, es_recuperacion: true }],
    below_feed_kg: 934.5,
    donations: null,
    hierarchy: null,
    follow_up: null,
    version: 1,
    sha256: 'ab'.repeat(32),
    previous: null,
    hotspots: [
      {
        food_category: 'bakery',
        food_category_label: 'Bakery',
        waste_stage: 'service',
        waste_stage_label: 'Service',
        kg: 500,
        share: 0.405,
        measures: ['Bake smaller batches in the afternoon.'],
      },
    ],
    target: { baseline_year: 2026, baseline_kg: 1234.5, target_2030_kg: 617.25, reduction: 0.5, note: 'Halve it by 2030.' },
    ...over,
  };
}

type Scope = { establishment_id: string; livemode: boolean };

export function analytics(over: Partial<Output<'analytics.get'>> = {}): Output<'analytics.get'> {
  return {
    total_kg: 0,
    total_records: 0,
    by_category: {},
    by_destino: {},
    by_cause: {},
    by_stage: {},
    recovery_rate: null,
    trend: [],
    from: '2026-10-27',
    to: '2026-11-25',
    group_by: 'day',
    ...over,
  };
}

export const periods: Output<'analytics.periods'> = (['today', 'week', 'month'] as const).map((period) => ({
  period,
  from: '2026-11-25',
  to: '2026-11-25',
  kg: period === 'today' ? 2.5 : 40,
  previous_from: '2026-11-24',
  previous_to: '2026-11-24',
  previous_kg: period === 'today' ? 5 : 0,
}));

/** What the overview asks for besides the analytics of its range. */
export function overviewFixtures(): Fixtures {
  return {
    'analytics.periods': periods,
    'analytics.benchmark': { available: false, reason: 'plan' },
    'analytics.alerts': [],
    'donations.agreements': [],
  };
}

export function forecast(input: Scope & { horizon?: number }, historyDays: number): Output<'predict.waste'> {
  const days = input.horizon ?? 14;
  return {
    type: 'waste',
    food_category: null,
    method: historyDays === 0 ? 'none' : 'holt-winters-weekly',
    history_days: historyDays,
    backtest: { metric: 'mae', value: historyDays === 0 ? null : 0.8, days: 14 },
    points: Array.from({ length: days }, (_, i) => ({
      date: `2026-12-${String(i + 1).padStart(2, '0')}`,
      predicted_kg: historyDays === 0 ? 0 : 3,
      lower: 0,
      upper: historyDays === 0 ? 0 : 5,
    })),
    generated_at: '2026-11-24T23:30:00.000Z',
  };
}

/** The production settings of an establishment that has not set its service level. */
export const defaultSettings: Output<'predict.settings'> = { service_level: 0.85, is_default: true, updated_at: null };

export const noDemand: Output<'predict.demand'> = {
  type: 'demand',
  product_id: null,
  food_category: null,
  products: [],
  generated_at: '2026-11-24T23:30:00.000Z',
};

/** A year's tax pack without donations (the donations page reads it with every visit). */
export function emptyTaxPack(year: number, livemode: boolean): Output<'donations.taxPack'> {
  return {
    year,
    livemode,
    scope: 'organisation',
    generated_at: '2026-11-24T23:30:00.000Z',
    rules: { rate_pct: 40, recurrent_rate_pct: 50, taxable_base_limit_pct: 15, carry_forward_years: 10, computed: year >= 2024 },
    taxpayers: [],
  };
}

/** "Does the law oblige you?" for the establishment: a canteen company's answer by default. */
export function obligations(over: Partial<Output<'compliance.obligations'>> = {}): Output<'compliance.obligations'> {
  return {
    establishment_id: ids.establishment,
    as_of: '2026-11-29',
    lang: 'en',
    organization: { headcount: 45, annual_turnover_eur: 3_200_000, balance_sheet_eur: null, microenterprise: false },
    establishment: {
      nace_code: '56.29',
      nace_label: 'Other food service activities (canteens and contract catering)',
      stage: 'food_services',
      floor_area_m2: 400,
    },
    cif: { cif: 'B12345678', establishments: 2, floor_area_m2: 1500 },
    obligations: [
      {
        key: 'prevention_plan',
        applies: 'yes',
        reason: 'over_area',
        articles: ['Ley 1/2025, art. 6.4.a', 'Ley 1/2025, art. 6.4.c'],
        text: 'Food loss and waste prevention plan. Obliged: the premises exceed 1,300 m².',
      },
      {
        key: 'donation_agreements',
        applies: 'yes',
        reason: 'over_area',
        articles: ['Ley 1/2025, art. 6.4.b'],
        text: 'Agreements to donate surplus food. Obliged.',
      },
      { key: 'hierarchy', applies: 'yes', reason: 'every_agent', articles: ['Ley 1/2025, art. 5'], text: 'Order of priorities. Obliged.' },
    ],
    missing: [],
    ...over,
  };
}

/** A year's waste in ESRS E5-5 terms: the worked example of compliance-esrs.test.ts. */
export function esrs(year = 2026): Output<'compliance.esrsE5'> {
  return {
    establishment_id: ids.establishment,
    livemode: false,
    year,
    period: { from: `${year}-01-01`, to: year === 2026 ? '2026-11-29' : `${year}-12-31` },
    total_kg: 31,
    not_waste_kg: 15,
    waste_kg: 16,
    diverted_from_disposal: { preparation_for_reuse_kg: 0, recycling_kg: 8, other_recovery_kg: 3, total_kg: 11 },
    directed_to_disposal: { incineration_kg: 0, landfill_kg: 5, other_disposal_kg: 0, total_kg: 5 },
    non_recycled_kg: 8,
    non_recycled_share: 0.5,
    measurement: { measured_kg: 12, estimated_kg: 3, not_stated_kg: 1 },
    measured_share: 0.75,
    by_destination: [],
  };
}
