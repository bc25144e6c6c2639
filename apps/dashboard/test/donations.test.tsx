import { MAX_AGREEMENT_DOCUMENT_BYTES } from '@merma/schema';
import { ROLES, type Role } from '@merma/schema/dashboard';
import { deadline } from '@merma/testing';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { formatLocale, i18n } from '../src/i18n/index.ts';
import { ApiError, api, network, type Output } from './support/api.ts';
import { analytics, appFixtures, emptyTaxPack, ids, overviewFixtures } from './support/fixtures.ts';
import { findNotification, renderApp, startingWith, t } from './support/render.tsx';

/** The Donations page's words are a namespace of their own, loaded as the page loads them. */
const td = i18n.getFixedT(null, 'donations');
beforeAll(() => i18n.loadNamespaces('donations'));

/** A calendar day as the page writes it (lib/format.ts, `date`). */
const day = (date: string) =>
  new Intl.DateTimeFormat(formatLocale('en'), { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${date}T12:00:00Z`),
  );

type Entity = Output<'donations.entities'>[number];
type Agreement = Output<'donations.agreements'>[number];

const ENTITY_ID = 'e1a0ad9f-6b9b-4f9d-9dee-000000000001';
const OTHER_ENTITY_ID = 'e1a0ad9f-6b9b-4f9d-9dee-000000000002';
const AGREEMENT_ID = 'a9a0ad9f-6b9b-4f9d-9dee-000000000001';
const SHA = 'ab'.repeat(32);

function entity(over: Partial<Entity> = {}): Entity {
  return {
    id: ENTITY_ID,
    name: 'Banco de Alimentos de Madrid',
    nif: 'G28029643',
    address: 'Calle Mayor 1, Madrid',
    legal_form: 'banco_de_alimentos',
    registry_number: 'RNA 1',
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    food_bank_network: 'FESBAL',
    contacts: [],
    capacity: { cold_chain: true, vehicle: false, notes: null },
    archived: false,
    created_at: '2026-11-01T09:00:00.000Z',
    updated_at: '2026-11-01T09:00:00.000Z',
    ...over,
  };
}

function agreement(over: Partial<Agreement> = {}): Agreement {
  return {
    id: AGREEMENT_ID,
    entity_id: ENTITY_ID,
    entity_name: 'Banco de Alimentos de Madrid',
    establishment_ids: [ids.establishment],
    valid_from: '2026-01-01',
    valid_until: '2026-12-07',
    renewal: 'none',
    status: 'expiring',
    accepted_food_categories: ['bakery'],
    conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
    collection: { schedule: 'Martes a las 18:00', weekdays: ['tuesday'], transport: 'entity' },
    storage_conditions: 'Refrigerado',
    safety_responsibility_clause: 'El donante hasta la entrega.',
    refusal_procedure: 'Por escrito, con motivo.',
    document: { sha256: SHA, size_bytes: 2048, uploaded_at: '2026-01-02T10:00:00.000Z' },
    created_at: '2026-01-01T09:00:00.000Z',
    updated_at: '2026-01-02T10:00:00.000Z',
    expires_in_days: 12,
    ...over,
  };
}

/** No donation offered yet: what the list answers before anything is offered. */
const NO_DONATIONS: Output<'donations.list'> = { items: [], total: 0, awaiting_reroute: { lines: 0, donations: 0 } };

function donations(role: Role, { entities = [entity()], agreements = [agreement()], offered = NO_DONATIONS } = {}) {
  api.use({
    ...appFixtures(role),
    'donations.entities': entities,
    'donations.agreements': (input) => (input.status ? agreements.filter((a) => a.status === input.status) : agreements),
    'donations.list': offered,
    'donations.taxPack': (input) => emptyTaxPack(input.year, input.livemode),
  });
}

describe('donations: who sees what', () => {
  // Every role has a line: a role added to the schema fails the typecheck until it is decided here.
  const manages: Record<Role, boolean> = { owner: true, admin: true, developer: false, viewer: false };
  it.each(ROLES)('%s', async (role) => {
    donations(role);
    await renderApp('/donations');
    const nav = screen.getByRole('navigation', { name: t('nav.label') });
    expect(within(nav).getByRole('link', { name: t('nav.donations') })).toBeInTheDocument();
    // Everyone reads the agreements, with the signed document to download, and the entities.
    const agreements = screen.getByRole('table', { name: td('donations.agreements.title') });
    const download = within(agreements).getByRole('link', {
      name: td('donations.document.downloadLabel', { entity: 'Banco de Alimentos de Madrid' }),
    });
    expect(download).toHaveAttribute('href', `/files/donation-agreements/${AGREEMENT_ID}/document`);
    expect(download).toHaveAttribute('download');
    expect(screen.getByRole('table', { name: td('donations.entities.title') })).toHaveTextContent('G28029643');
    for (const name of [
      td('donations.entities.add'),
      td('donations.agreements.add'),
      td('donations.entities.editLabel', { name: 'Banco de Alimentos de Madrid' }),
      td('donations.agreements.editLabel', { entity: 'Banco de Alimentos de Madrid' }),
      // The agreement has its signed document: the button replaces it.
      td('donations.document.replaceLabel', { entity: 'Banco de Alimentos de Madrid' }),
    ]) {
      if (manages[role]) expect(screen.getByRole('button', { name })).toBeInTheDocument();
      else expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    }
    if (!manages[role]) expect(screen.getByText(td('donations.readOnly'))).toBeInTheDocument();
    // Those who record waste by hand offer donations (each line is a record); viewers do not.
    const offer = screen.queryByRole('button', { name: td('donations.offers.offer') });
    if (role === 'viewer') expect(offer).not.toBeInTheDocument();
    else expect(offer).toBeInTheDocument();
    // Everyone reads this establishment's donations, in the mode shown.
    expect(screen.getByRole('table', { name: td('donations.offers.title') })).toHaveTextContent(td('donations.offers.empty'));
    expect(api.last('donations.list')).toEqual({ establishment_id: ids.establishment, livemode: false, limit: 20, offset: 0 });
  });
});

describe('donations: agreements ending soon', () => {
  it('flags an agreement ending within 30 days with its days left, in the table and in an alert', async () => {
    donations('viewer', {
      agreements: [
        agreement(),
        agreement({ id: 'a9a0ad9f-6b9b-4f9d-9dee-000000000002', entity_name: 'Cáritas', expires_in_days: 0, valid_until: '2026-11-25' }),
        agreement({ id: 'a9a0ad9f-6b9b-4f9d-9dee-000000000003', entity_name: 'Cruz Roja', status: 'active', expires_in_days: null }),
      ],
    });
    await renderApp('/donations');
    const table = screen.getByRole('table', { name: td('donations.agreements.title') });
    const row = (name: string) => within(table).getByText(name).closest('tr') as HTMLElement;
    expect(row('Banco de Alimentos de Madrid')).toHaveTextContent(td('donations.agreements.expiresIn', { count: 12 }));
    expect(row('Cáritas')).toHaveTextContent(td('donations.agreements.expiresToday'));
    expect(row('Cruz Roja')).toHaveTextContent(td('donations.agreements.status.active'));
    expect(within(row('Cruz Roja')).queryByTestId('expires-in')).not.toBeInTheDocument();

    // The alert lists the two, soonest first, from the organisation's expiring agreements.
    const alert = screen.getByTestId('expiring-agreements');
    expect(alert).toHaveTextContent(td('donations.expiring.title', { count: 2 }));
    const items = within(alert).getAllByRole('listitem');
    expect(items.map((i) => i.textContent)).toEqual([
      td('donations.expiring.itemToday', { entity: 'Cáritas', date: day('2026-11-25') }),
      td('donations.expiring.item', { entity: 'Banco de Alimentos de Madrid', date: day('2026-12-07'), count: 12 }),
    ]);
    expect(api.inputs('donations.agreements')).toContainEqual({ status: 'expiring' });
  });

  it('shows the same flag on the overview, for the establishment shown, with a link to the agreements', async () => {
    api.use({
      ...appFixtures('viewer'),
      ...overviewFixtures(),
      'analytics.get': analytics(),
      'donations.agreements': [agreement()],
    });
    await renderApp('/overview');
    const alert = await screen.findByTestId('expiring-agreements');
    expect(alert).toHaveTextContent(
      td('donations.expiring.item', { entity: 'Banco de Alimentos de Madrid', date: day('2026-12-07'), count: 12 }),
    );
    expect(api.last('donations.agreements')).toEqual({ establishment_id: ids.establishment, status: 'expiring' });
    expect(within(alert).getByRole('link', { name: td('donations.expiring.link') })).toHaveAttribute(
      'href',
      expect.stringMatching(new RegExp(`^/dashboard/donations\\?.*covers=${ids.establishment}`)),
    );
  });

  it('shows no alert when nothing ends within 30 days', async () => {
    donations('owner', { agreements: [agreement({ status: 'active', expires_in_days: null })] });
    await renderApp('/donations');
    expect(screen.queryByTestId('expiring-agreements')).not.toBeInTheDocument();
  });
});

describe('donations: the page', () => {
  it.each(['test', 'live'] as const)('in %s mode, says whether what is changed here is shared by both modes', async (mode) => {
    donations('owner');
    await renderApp(`/donations?mode=${mode}`);
    // The same entities and agreements in both modes: no call for them names one; the donations are the mode's.
    const shared = api.calls().filter((c) => c.path === 'donations.entities' || c.path === 'donations.agreements');
    for (const call of shared) expect(call.input ?? {}).not.toHaveProperty('livemode');
    expect(api.last('donations.list')).toMatchObject({ livemode: mode === 'live' });
    if (mode === 'test') expect(screen.getByTestId('donations-shared')).toHaveTextContent(td('donations.sharedByModes'));
    else expect(screen.queryByTestId('donations-shared')).not.toBeInTheDocument();
  });

  it('filters the agreements by entity from the URL and from the form', async () => {
    donations('viewer', { entities: [entity(), entity({ id: OTHER_ENTITY_ID, name: 'Cáritas', nif: 'R2800001F' })] });
    const { user, search } = await renderApp(`/donations?entity=${ENTITY_ID}`);
    expect(api.inputs('donations.agreements')).toContainEqual({ entity_id: ENTITY_ID });
    await user.click(screen.getByRole('combobox', { name: td('donations.agreements.filterEntity') }));
    await user.click(await screen.findByRole('option', { name: 'Cáritas' }));
    await waitFor(() => expect(search().entity).toBe(OTHER_ENTITY_ID));
    await waitFor(() => expect(api.last('donations.agreements')).toEqual({ entity_id: OTHER_ENTITY_ID }));
  });

  it('lists archived entities only when asked', async () => {
    donations('owner', { entities: [entity(), entity({ id: OTHER_ENTITY_ID, name: 'Cáritas', archived: true })] });
    const { user } = await renderApp('/donations');
    const table = screen.getByRole('table', { name: td('donations.entities.title') });
    expect(within(table).queryByText('Cáritas')).not.toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: td('donations.entities.showArchived', { count: 1 }) }));
    expect(within(table).getByText('Cáritas')).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: td('donations.entities.restoreLabel', { name: 'Cáritas' }) })).toBeInTheDocument();
  });
});

describe('donations: the entity form', () => {
  async function openForm() {
    donations('admin', { entities: [], agreements: [] });
    const view = await renderApp('/donations');
    await view.user.click(screen.getByRole('button', { name: td('donations.entities.add') }));
    const dialog = await screen.findByRole('dialog', { name: td('donations.entityForm.newTitle') });
    return { ...view, dialog };
  }
  const field = (dialog: HTMLElement, label: string) => within(dialog).getByRole('textbox', { name: startingWith(label) });

  it('asks for the required fields and a valid NIF, and sends nothing', async () => {
    const { user, dialog } = await openForm();
    await user.type(field(dialog, td('donations.entityForm.nif')), 'G28029644');
    await user.click(within(dialog).getByRole('button', { name: td('donations.entityForm.create') }));
    for (const message of [
      'donations.entityForm.nameRequired',
      'donations.entityForm.nifInvalid',
      'donations.entityForm.addressRequired',
      'donations.entityForm.legalFormRequired',
    ] as const) {
      expect(within(dialog).getByText(td(message))).toBeInTheDocument();
    }
    expect(api.inputs('donations.createEntity')).toHaveLength(0);
  });

  it('sends every field as the API takes it: trimmed, empty optional ones as null, the contacts', async () => {
    const { user, dialog } = await openForm();
    api.use({ 'donations.createEntity': (input) => entity({ name: input.name }) });
    await user.type(field(dialog, td('donations.entityForm.name')), '  Banco de Alimentos de Madrid ');
    await user.type(field(dialog, td('donations.entityForm.nif')), 'g-28029643');
    await user.click(within(dialog).getByRole('combobox', { name: startingWith(td('donations.entityForm.legalForm')) }));
    await user.click(await screen.findByRole('option', { name: td('donations.legalForms.banco_de_alimentos') }));
    await user.type(field(dialog, td('donations.entityForm.address')), 'Calle Mayor 1, Madrid');
    await user.type(field(dialog, td('donations.entityForm.network')), 'FESBAL');
    await user.click(within(dialog).getByRole('checkbox', { name: startingWith(td('donations.entityForm.art2')) }));
    await user.click(within(dialog).getByRole('checkbox', { name: td('donations.entities.coldChain') }));
    await user.click(within(dialog).getByRole('button', { name: td('donations.entityForm.addContact') }));
    await user.type(field(dialog, td('donations.entityForm.contactName', { n: 1 })), 'Ana Ruiz');
    await user.type(field(dialog, td('donations.entityForm.contactEmail', { n: 1 })), 'ana@example.org');
    await user.click(within(dialog).getByRole('button', { name: td('donations.entityForm.create') }));

    await waitFor(() => expect(api.inputs('donations.createEntity')).toHaveLength(1));
    expect(api.last('donations.createEntity')).toEqual({
      name: 'Banco de Alimentos de Madrid',
      nif: 'g-28029643',
      address: 'Calle Mayor 1, Madrid',
      legal_form: 'banco_de_alimentos',
      registry_number: null,
      ley_49_2002: { art2_entity: true, regime_opted_in: false },
      food_bank_network: 'FESBAL',
      contacts: [{ name: 'Ana Ruiz', role: null, phone: null, email: 'ana@example.org' }],
      capacity: { cold_chain: true, vehicle: false, notes: null },
    });
    await findNotification(td('donations.entityForm.created', { name: 'Banco de Alimentos de Madrid' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it("shows the server's refusal in the form, which stays open", async () => {
    const { user, dialog } = await openForm();
    api.use({
      'donations.createEntity': () => {
        throw new ApiError('conflict', 'Another social entity of this organisation has the NIF G28029643');
      },
    });
    await user.type(field(dialog, td('donations.entityForm.name')), 'Banco');
    await user.type(field(dialog, td('donations.entityForm.nif')), 'G28029643');
    await user.click(within(dialog).getByRole('combobox', { name: startingWith(td('donations.entityForm.legalForm')) }));
    await user.click(await screen.findByRole('option', { name: td('donations.legalForms.fundacion') }));
    await user.type(field(dialog, td('donations.entityForm.address')), 'Calle 1');
    await user.click(within(dialog).getByRole('button', { name: td('donations.entityForm.create') }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(t('errors.codes.conflict'));
    expect(screen.getByRole('dialog', { name: td('donations.entityForm.newTitle') })).toBeInTheDocument();
  });
});

describe('donations: the agreement form', () => {
  it('sends the terms as the API takes them, days of the week and categories in their order', async () => {
    donations('owner', { agreements: [] });
    const { user } = await renderApp('/donations');
    api.use({ 'donations.createAgreement': () => agreement() });
    await user.click(screen.getByRole('button', { name: td('donations.agreements.add') }));
    const dialog = await screen.findByRole('dialog', { name: td('donations.agreementForm.newTitle') });
    await user.click(within(dialog).getByRole('combobox', { name: startingWith(td('donations.agreementForm.entity')) }));
    await user.click(await screen.findByRole('option', { name: 'Banco de Alimentos de Madrid (G28029643)' }));
    // The establishment shown in the shell is ticked already.
    expect(within(dialog).getByRole('checkbox', { name: 'Casa Pepe' })).toBeChecked();
    const until = within(dialog).getByLabelText(startingWith(td('donations.agreementForm.validUntil')));
    await user.type(until, '2025-12-31');
    await user.click(within(dialog).getByRole('checkbox', { name: t('categories.fruit_veg') }));
    await user.click(within(dialog).getByRole('checkbox', { name: t('categories.bakery') }));
    await user.click(within(dialog).getByRole('checkbox', { name: td('donations.agreementForm.condition.chilled') }));
    await user.type(within(dialog).getByRole('textbox', { name: startingWith(td('donations.agreementForm.schedule')) }), 'Jueves');
    await user.click(within(dialog).getByRole('checkbox', { name: t('opening.weekdays.names.thursday') }));
    await user.click(within(dialog).getByRole('checkbox', { name: t('opening.weekdays.names.monday') }));
    await user.type(within(dialog).getByRole('textbox', { name: startingWith(td('donations.agreementForm.storage')) }), 'Frío');
    await user.type(within(dialog).getByRole('textbox', { name: startingWith(td('donations.agreementForm.safety')) }), 'Cada parte');
    await user.type(within(dialog).getByRole('textbox', { name: startingWith(td('donations.agreementForm.refusal')) }), 'Por escrito');
    const submit = within(dialog).getByRole('button', { name: td('donations.agreementForm.create') });
    await user.click(submit);
    // Today in Madrid (25 November) is the first day offered: a last day before it is refused here.
    expect(within(dialog).getByText(td('donations.agreementForm.untilBeforeFrom'))).toBeInTheDocument();
    expect(api.inputs('donations.createAgreement')).toHaveLength(0);
    await user.clear(until);
    await user.type(until, '2027-11-24');
    await user.click(submit);

    await waitFor(() => expect(api.inputs('donations.createAgreement')).toHaveLength(1));
    expect(api.last('donations.createAgreement')).toEqual({
      entity_id: ENTITY_ID,
      establishment_ids: [ids.establishment],
      valid_from: '2026-11-25',
      valid_until: '2027-11-24',
      renewal: 'none',
      accepted_food_categories: ['fruit_veg', 'bakery'],
      conditions: { chilled: true, frozen: false, cooked: false, near_best_before: false },
      collection: { schedule: 'Jueves', weekdays: ['monday', 'thursday'], transport: 'entity' },
      storage_conditions: 'Frío',
      safety_responsibility_clause: 'Cada parte',
      refusal_procedure: 'Por escrito',
    });
  });

  it("edits an agreement's terms, its entity fixed", async () => {
    donations('admin');
    const { user } = await renderApp('/donations');
    api.use({ 'donations.updateAgreement': () => agreement() });
    await user.click(
      screen.getByRole('button', { name: td('donations.agreements.editLabel', { entity: 'Banco de Alimentos de Madrid' }) }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: td('donations.agreementForm.editTitle', { entity: 'Banco de Alimentos de Madrid' }),
    });
    expect(within(dialog).getByRole('combobox', { name: startingWith(td('donations.agreementForm.entity')) })).toBeDisabled();
    const until = within(dialog).getByLabelText(startingWith(td('donations.agreementForm.validUntil')));
    await user.clear(until);
    await user.type(until, '2027-12-06');
    await user.click(within(dialog).getByRole('button', { name: t('common.save') }));
    await waitFor(() => expect(api.inputs('donations.updateAgreement')).toHaveLength(1));
    expect(api.last('donations.updateAgreement')).toMatchObject({ id: AGREEMENT_ID, valid_until: '2027-12-06', valid_from: '2026-01-01' });
    expect(api.last('donations.updateAgreement')).not.toHaveProperty('entity_id');
  });
});

describe("donations: the signed agreement's PDF", () => {
  /** Answers the page's upload as the server would, and keeps what it was sent. */
  function answerUploads(answer: () => Response) {
    const sent: { type: string | null; bytes: number }[] = [];
    network.use(
      http.put('*/files/donation-agreements/:id/document', async ({ request, params }) => {
        expect(params.id).toBe(AGREEMENT_ID);
        sent.push({ type: request.headers.get('content-type'), bytes: (await request.arrayBuffer()).byteLength });
        return answer();
      }),
    );
    onTestFinished(() => network.resetHandlers());
    return sent;
  }
  async function openUpload() {
    donations('owner', { agreements: [agreement({ document: null, status: 'draft', expires_in_days: null })] });
    const view = await renderApp('/donations');
    await view.user.click(
      screen.getByRole('button', { name: td('donations.document.uploadLabel', { entity: 'Banco de Alimentos de Madrid' }) }),
    );
    const dialog = await screen.findByRole('dialog', { name: td('donations.document.title', { entity: 'Banco de Alimentos de Madrid' }) });
    return { ...view, dialog, file: within(dialog).getByLabelText(td('donations.document.file')) as HTMLInputElement };
  }
  const pdf = (bytes: number, name = 'convenio.pdf') => new File([new Uint8Array(bytes)], name, { type: 'application/pdf' });

  it('uploads the PDF as it is and shows the SHA-256 the server computed', async () => {
    const sent = answerUploads(() => HttpResponse.json(agreement({ status: 'active', expires_in_days: null })));
    const { user, dialog, file } = await openUpload();
    await user.upload(file, pdf(2048));
    await user.click(within(dialog).getByRole('button', { name: td('donations.document.send') }));
    expect(await within(dialog).findByTestId('stored-sha256')).toHaveTextContent(SHA);
    expect(sent).toEqual([{ type: 'application/pdf', bytes: 2048 }]);
    await findNotification(td('donations.document.uploaded', { entity: 'Banco de Alimentos de Madrid' }));
    // The list is asked again, to show the document and the status it now has.
    await waitFor(() => expect(api.inputs('donations.agreements').length).toBeGreaterThanOrEqual(3));
  });

  it('refuses a file that is not a PDF or is over 10 MiB before sending it', async () => {
    const sent = answerUploads(() => HttpResponse.json(agreement()));
    const { user, dialog, file } = await openUpload();
    const send = within(dialog).getByRole('button', { name: td('donations.document.send') });
    // The file picker offers PDFs, but a browser lets people pick "all files".
    await userEvent.setup({ applyAccept: false, delay: null }).upload(file, new File(['hola'], 'notas.txt', { type: 'text/plain' }));
    expect(within(dialog).getByText(td('donations.document.problems.notPdf'))).toBeInTheDocument();
    expect(send).toBeDisabled();
    await user.upload(file, pdf(MAX_AGREEMENT_DOCUMENT_BYTES + 1));
    expect(within(dialog).getByText(td('donations.document.problems.tooLarge', { mib: 10 }))).toBeInTheDocument();
    expect(send).toBeDisabled();
    expect(file).toHaveAttribute('aria-invalid', 'true');
    expect(sent).toEqual([]);
  });

  it("shows the server's refusal in words, with the field it names", async () => {
    answerUploads(() =>
      HttpResponse.json(
        { error: 'The document is not a PDF', status: 400, code: 'validation_error', details: [{ path: 'body', message: 'not a PDF' }] },
        { status: 400 },
      ),
    );
    const { user, dialog, file } = await openUpload();
    await user.upload(file, pdf(100));
    await user.click(within(dialog).getByRole('button', { name: td('donations.document.send') }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(t('errors.codes.validation_error'));
    expect(alert).toHaveTextContent('body: not a PDF');
    expect(within(dialog).queryByTestId('stored-sha256')).not.toBeInTheDocument();
  });
});

// --- Donations offered -------------------------------------------------------------------------

type Donation = Output<'donations.get'>;
type DonationLine = Donation['lines'][number];
const DONATION_ID = 'd0a0ad9f-6b9b-4f9d-9dee-000000000001';
const LINE_IDS = ['10a0ad9f-6b9b-4f9d-9dee-000000000001', '10a0ad9f-6b9b-4f9d-9dee-000000000002'] as const;
const PRODUCT_ID = 'b0a0ad9f-6b9b-4f9d-9dee-000000000001';
const NOTE_SHA = 'cd'.repeat(32);
const LINK = {
  url: `https://merma.example/dashboard/sign/${DONATION_ID}#dln_${'A'.repeat(43)}`,
  expires_at: '2026-11-27T10:00:00.000Z',
};

function line(n: 1 | 2, over: Partial<DonationLine> = {}): DonationLine {
  return {
    id: LINE_IDS[n - 1] as string,
    position: n,
    product_id: null,
    food_category: 'bakery',
    description: n === 1 ? 'Pan de barra' : 'Croissants',
    lot: n === 1 ? 'L-12' : null,
    best_before: null,
    use_by: n === 1 ? '2026-11-27' : null,
    quantity: n === 1 ? 3 : 12,
    unit: n === 1 ? 'kg' : 'unit',
    net_kg: n === 1 ? 3 : 0.9,
    storage: 'ambient',
    cooked: false,
    book_value: null,
    market_value: null,
    allergens: n === 1 ? ['gluten'] : ['gluten', 'milk', 'eggs'],
    temperature_c: null,
    status: 'offered',
    refusal_reason: null,
    record_id: `20a0ad9f-6b9b-4f9d-9dee-00000000000${n}`,
    rerouted: null,
    ...over,
  };
}

function donation(over: Partial<Donation> = {}): Donation {
  const lines = over.lines ?? [line(1), line(2)];
  return {
    id: DONATION_ID,
    establishment_id: ids.establishment,
    livemode: false,
    agreement_id: AGREEMENT_ID,
    entity_id: ENTITY_ID,
    entity_name: 'Banco de Alimentos de Madrid',
    status: 'offered',
    notes: null,
    offered_at: '2026-11-25T09:30:00.000Z',
    decided_at: null,
    collected_at: null,
    received_at: null,
    totals: { net_kg: 3.9, accepted_kg: 0, book_value: 0, market_value: 0 },
    awaiting_reroute: lines.filter((l) => l.status === 'refused' && !l.rerouted).length,
    note: null,
    link: null,
    ...over,
    lines,
  };
}

/** Types `text` into a field at once (pasted): a long form re-renders on each key, slowly in happy-dom. */
async function fill(user: Awaited<ReturnType<typeof renderApp>>['user'], field: HTMLElement, text: string) {
  await user.click(field);
  await user.paste(text);
}

/** The options of the dropdown open now (not the language switcher's native ones). */
async function dropdownOptions() {
  await screen.findByRole('listbox');
  return screen.getAllByRole('option').filter((o) => o.closest('[role="listbox"]'));
}

const page = (items: Donation[], waiting = { lines: 0, donations: 0 }): Output<'donations.list'> => ({
  items,
  total: items.length,
  awaiting_reroute: waiting,
});

/** The donation's dialog, opened from the URL as a row's button opens it. */
async function openDonation(role: Role, shown: Donation) {
  donations(role, { offered: page([shown]) });
  api.use({ 'donations.get': shown });
  const view = await renderApp(`/donations?donation=${DONATION_ID}`);
  // The page and the dialog's query: a few seconds on a busy two-core machine.
  const dialog = await screen.findByRole(
    'dialog',
    { name: td('donations.detail.title', { entity: shown.entity_name }) },
    { timeout: deadline(10_000) },
  );
  await within(dialog).findByRole('table', { name: td('donations.detail.linesTitle') }, { timeout: deadline(10_000) });
  return { ...view, dialog };
}

describe('donations: the list', () => {
  it('shows each donation with its status, and the refused lines waiting for a destination above it, with the way to list them', async () => {
    const refused = donation({
      status: 'accepted',
      lines: [line(1, { status: 'accepted' }), line(2, { status: 'refused', refusal_reason: 'Sin frío' })],
      totals: { net_kg: 3.9, accepted_kg: 3, book_value: 0, market_value: 0 },
    });
    donations('viewer', { offered: page([refused, donation({ id: 'd0a0ad9f-6b9b-4f9d-9dee-000000000002' })], { lines: 3, donations: 2 }) });
    const { user, search } = await renderApp('/donations');
    const alert = screen.getByTestId('awaiting-reroute');
    expect(alert).toHaveTextContent(td('donations.offers.waiting.title', { count: 3 }));
    expect(alert).toHaveTextContent(td('donations.offers.waiting.text', { count: 2 }));
    const table = screen.getByRole('table', { name: td('donations.offers.title') });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent(td('donations.status.accepted'));
    expect(rows[0]).toHaveTextContent(td('donations.offers.waitingBadge', { count: 1 }));
    expect(rows[1]).toHaveTextContent(td('donations.status.offered'));
    expect(rows[1]).not.toHaveTextContent(td('donations.offers.waitingBadge', { count: 1 }));

    await user.click(within(alert).getByRole('button', { name: td('donations.offers.waiting.show') }));
    await waitFor(() => expect(search().waiting).toBe(true));
    await waitFor(() => expect(api.last('donations.list')).toMatchObject({ awaiting_reroute: true, offset: 0 }));
  });

  it('shows no alert when no refused line waits', async () => {
    donations('owner', { offered: page([donation()]) });
    await renderApp('/donations');
    expect(screen.queryByTestId('awaiting-reroute')).not.toBeInTheDocument();
  });
});

// A long form: each test gets the time happy-dom needs to render it on a busy two-core machine.
describe('donations: offering one', () => {
  const bread: Output<'catalog.products'>[number] = {
    id: PRODUCT_ID,
    name: 'Barra de pan',
    food_category: 'bakery',
    ean: '2000000000015',
    pos_ref: null,
    unit_weight_kg: 0.25,
    density_kg_per_l: null,
    price: 1.2,
    unit_cost: 0.3,
    salvage_value: null,
    active: true,
  };
  async function openOffer() {
    donations('developer', {
      agreements: [
        agreement(),
        agreement({ id: 'a9a0ad9f-6b9b-4f9d-9dee-000000000002', entity_name: 'Borrador', status: 'draft', expires_in_days: null }),
        agreement({ id: 'a9a0ad9f-6b9b-4f9d-9dee-000000000003', entity_name: 'Vencido', status: 'expired', expires_in_days: null }),
        agreement({
          id: 'a9a0ad9f-6b9b-4f9d-9dee-000000000004',
          entity_name: 'Otro local',
          status: 'active',
          establishment_ids: [ids.otherEstablishment],
          expires_in_days: null,
        }),
      ],
    });
    api.use({ 'catalog.products': [bread], 'donations.get': donation() });
    const view = await renderApp('/donations');
    await view.user.click(screen.getByRole('button', { name: td('donations.offers.offer') }));
    // A long form: happy-dom takes a few seconds to lay it out on a busy machine.
    const dialog = await screen.findByRole('dialog', { name: td('donations.offerForm.title') }, { timeout: deadline(10_000) });
    return { ...view, dialog };
  }
  const lineSet = (dialog: HTMLElement, n: number) => within(dialog).getByRole('group', { name: td('donations.offerForm.line', { n }) });

  it('offers only agreements in force covering the establishment, and sends each line as the API takes it', {
    timeout: deadline(45_000),
  }, async () => {
    const { user, dialog, search } = await openOffer();
    api.use({ 'donations.offer': () => donation() });
    // The one agreement in force here is chosen already; the others are not offered.
    const select = within(dialog).getByRole('combobox', { name: startingWith(td('donations.offerForm.agreement')) });
    const only = td('donations.offerForm.agreementOption', { entity: 'Banco de Alimentos de Madrid', until: day('2026-12-07') });
    expect(select).toHaveValue(only);
    await user.click(select);
    expect((await dropdownOptions()).map((o) => o.textContent)).toEqual([only]);
    await user.click(screen.getByRole('option', { name: only }));
    expect(select).toHaveValue(only);

    // Line 1 by hand: category, what, how much, lot, use-by, allergens.
    const first = lineSet(dialog, 1);
    await user.click(within(first).getByRole('combobox', { name: startingWith(td('donations.offerForm.category')) }));
    await user.click(await screen.findByRole('option', { name: t('categories.bakery') }));
    await fill(user, within(first).getByRole('textbox', { name: startingWith(td('donations.offerForm.description')) }), 'Pan de ayer');
    await fill(user, within(first).getByRole('textbox', { name: startingWith(td('donations.offerForm.quantity')) }), '3,5');
    await fill(user, within(first).getByRole('textbox', { name: startingWith(td('donations.offerForm.lot')) }), 'L-12');
    await fill(user, within(first).getByLabelText(td('donations.offerForm.useBy')), '2026-11-27');
    await user.click(within(first).getByRole('checkbox', { name: td('donations.allergens.gluten') }));
    await user.click(within(first).getByRole('checkbox', { name: td('donations.allergens.milk') }));
    expect(within(first).getAllByRole('checkbox')).toHaveLength(15); // the 14 allergens and "cooked"

    // Line 2 from the catalogue: its name fills what it is; 12 units.
    await user.click(within(dialog).getByRole('button', { name: td('donations.offerForm.addLine') }));
    const second = lineSet(dialog, 2);
    await user.click(within(second).getByRole('combobox', { name: startingWith(td('donations.offerForm.product')) }));
    await user.click(await screen.findByRole('option', { name: 'Barra de pan' }));
    expect(within(second).getByRole('textbox', { name: startingWith(td('donations.offerForm.description')) })).toHaveValue('Barra de pan');
    await fill(user, within(second).getByRole('textbox', { name: startingWith(td('donations.offerForm.quantity')) }), '12');
    await user.click(within(second).getByRole('combobox', { name: td('donations.offerForm.unit') }));
    await user.click(await screen.findByRole('option', { name: td('donations.units.unit') }));
    await user.click(within(second).getByRole('checkbox', { name: td('donations.offerForm.cooked') }));
    await user.click(within(dialog).getByRole('button', { name: td('donations.offerForm.submit') }));

    await waitFor(() => expect(api.inputs('donations.offer')).toHaveLength(1));
    const common = { storage: 'ambient', temperature_c: null, book_value: null, market_value: null, best_before: null };
    expect(api.last('donations.offer')).toEqual({
      establishment_id: ids.establishment,
      livemode: false,
      agreement_id: AGREEMENT_ID,
      notes: null,
      lines: [
        {
          ...common,
          product_id: null,
          food_category: 'bakery',
          description: 'Pan de ayer',
          quantity: 3.5,
          unit: 'kg',
          lot: 'L-12',
          use_by: '2026-11-27',
          cooked: false,
          allergens: ['gluten', 'milk'],
        },
        {
          ...common,
          product_id: PRODUCT_ID,
          description: 'Barra de pan',
          quantity: 12,
          unit: 'unit',
          lot: null,
          use_by: null,
          cooked: true,
          allergens: [],
        },
      ],
    });
    // Offered: the donation opens, to send it for signature.
    await findNotification(td('donations.offerForm.offered', { entity: 'Banco de Alimentos de Madrid' }));
    await waitFor(() => expect(search().donation).toBe(DONATION_ID));
    await screen.findByRole('dialog', { name: td('donations.detail.title', { entity: 'Banco de Alimentos de Madrid' }) });
  });

  it("puts the server's refusals under the fields they name, and keeps the form open", { timeout: deadline(45_000) }, async () => {
    const { user, dialog } = await openOffer();
    api.use({
      'donations.offer': () => {
        throw new ApiError('validation_error', 'refused', [
          { path: 'lines.0.use_by', message: '2026-11-20 is past: food past its use-by date cannot be donated' },
          { path: 'lines.1.food_category', message: "'meat' is not a category the agreement accepts" },
        ]);
      },
    });
    await user.click(within(dialog).getByRole('button', { name: td('donations.offerForm.addLine') }));
    for (const n of [1, 2]) {
      const set = lineSet(dialog, n);
      await user.click(within(set).getByRole('combobox', { name: startingWith(td('donations.offerForm.category')) }));
      await user.click(await screen.findByRole('option', { name: t(n === 1 ? 'categories.bakery' : 'categories.meat') }));
      await fill(user, within(set).getByRole('textbox', { name: startingWith(td('donations.offerForm.description')) }), `Cosa ${n}`);
      await fill(user, within(set).getByRole('textbox', { name: startingWith(td('donations.offerForm.quantity')) }), '1');
    }
    await fill(user, within(lineSet(dialog, 1)).getByLabelText(td('donations.offerForm.useBy')), '2026-11-20');
    await user.click(within(dialog).getByRole('button', { name: td('donations.offerForm.submit') }));

    expect(await within(dialog).findByRole('alert')).toHaveTextContent(t('errors.codes.validation_error'));
    const useBy = within(lineSet(dialog, 1)).getByLabelText(td('donations.offerForm.useBy'));
    await waitFor(() => expect(useBy).toHaveAccessibleDescription(/food past its use-by date cannot be donated/));
    expect(useBy).toHaveAttribute('aria-invalid', 'true');
    const category = within(lineSet(dialog, 2)).getByRole('combobox', { name: startingWith(td('donations.offerForm.category')) });
    expect(category).toHaveAccessibleDescription(/is not a category the agreement accepts/);
    expect(screen.getByRole('dialog', { name: td('donations.offerForm.title') })).toBeInTheDocument();
  });

  it('asks for what each line needs before sending anything', { timeout: deadline(45_000) }, async () => {
    const { user, dialog } = await openOffer();
    await user.click(within(dialog).getByRole('button', { name: td('donations.offerForm.submit') }));
    for (const message of [
      td('donations.offerForm.categoryRequired'),
      td('donations.offerForm.descriptionRequired'),
      t('numbers.required'),
    ]) {
      expect(within(dialog).getByText(message)).toBeInTheDocument();
    }
    expect(api.inputs('donations.offer')).toHaveLength(0);
  });

  it('says so when no agreement in force covers the establishment', { timeout: deadline(45_000) }, async () => {
    donations('owner', { agreements: [agreement({ status: 'draft', expires_in_days: null })] });
    api.use({ 'catalog.products': [] });
    const { user } = await renderApp('/donations');
    await user.click(screen.getByRole('button', { name: td('donations.offers.offer') }));
    const dialog = await screen.findByRole('dialog', { name: td('donations.offerForm.title') });
    expect(dialog).toHaveTextContent(td('donations.offerForm.noAgreement', { establishment: 'Casa Pepe' }));
    expect(within(dialog).queryByRole('button', { name: td('donations.offerForm.submit') })).not.toBeInTheDocument();
  });
});

describe('donations: one donation', () => {
  it('sends an offered donation for signature: the link, its QR code, a copy button and until when it works', async () => {
    const { user, dialog } = await openDonation('developer', donation());
    expect(within(dialog).getByTestId('donation-signature')).toHaveTextContent(td('donations.detail.notSigned'));
    api.use({ 'donations.createLink': LINK });
    await user.click(within(dialog).getByRole('button', { name: td('donations.detail.sendForSignature') }));
    const shown = await screen.findByRole('dialog', { name: td('donations.link.title', { entity: 'Banco de Alimentos de Madrid' }) });
    expect(within(shown).getByRole('textbox', { name: td('donations.link.url') })).toHaveValue(LINK.url);
    const qr = await within(shown).findByRole('img', { name: td('donations.link.qr') });
    expect(qr.querySelector('path')?.getAttribute('d')).toMatch(/^M\d+ \d+h1v1h-1z/);
    expect(within(shown).getByRole('button', { name: t('common.copy') })).toBeInTheDocument();
    // Until when, in the establishment's time: 27 November, 11:00 in Madrid.
    expect(within(shown).getByTestId('signing-link-expires')).toHaveTextContent(/27.*2026.*11:00/);
    expect(api.last('donations.createLink')).toEqual({ establishment_id: ids.establishment, livemode: false, id: DONATION_ID });
    // Only its own button leaves the link, back to the donation.
    await user.click(within(shown).getByRole('button', { name: td('donations.link.done') }));
    await screen.findByRole('dialog', { name: td('donations.detail.title', { entity: 'Banco de Alimentos de Madrid' }) });
  });

  it("shows a signed donation's note: who signed, its SHA-256 and the PDF to download", async () => {
    const { dialog } = await openDonation('viewer', {
      ...donation({ status: 'accepted', lines: [line(1, { status: 'accepted' }), line(2, { status: 'accepted' })] }),
      note: { signer_name: 'Lucía Pérez', signed_at: '2026-11-25T11:00:00.000Z', sha256: NOTE_SHA },
      link: { created_at: '2026-11-25T10:00:00.000Z', expires_at: LINK.expires_at, used_at: '2026-11-25T11:00:00.000Z' },
    });
    const signature = within(dialog).getByTestId('donation-signature');
    expect(within(signature).getByTestId('note-sha256')).toHaveTextContent(NOTE_SHA);
    expect(signature).toHaveTextContent(/Lucía Pérez/);
    expect(within(signature).getByRole('link', { name: td('donations.detail.download') })).toHaveAttribute(
      'href',
      `/files/donations/${DONATION_ID}/note.pdf?establishment_id=${ids.establishment}&mode=test`,
    );
    // A viewer reads; no step is offered.
    expect(within(dialog).queryByRole('button', { name: td('donations.detail.collect') })).not.toBeInTheDocument();
  });

  it('offers the steps valid in its state: collected once accepted', async () => {
    const { user, dialog } = await openDonation(
      'owner',
      donation({ status: 'accepted', lines: [line(1, { status: 'accepted' }), line(2, { status: 'accepted' })] }),
    );
    expect(within(dialog).queryByRole('button', { name: td('donations.detail.sendForSignature') })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: td('donations.detail.receive') })).not.toBeInTheDocument();
    api.use({ 'donations.collect': () => donation({ status: 'collected' }) });
    await user.click(within(dialog).getByRole('button', { name: td('donations.detail.collect') }));
    await waitFor(() =>
      expect(api.last('donations.collect')).toEqual({ establishment_id: ids.establishment, livemode: false, id: DONATION_ID }),
    );
    await findNotification(td('donations.detail.collected'));
  });

  it('sends a refused line elsewhere, offering only the destinations below donation', async () => {
    const refused = donation({
      status: 'accepted',
      lines: [line(1, { status: 'accepted' }), line(2, { status: 'refused', refusal_reason: 'Sin frío' })],
    });
    const { user, dialog } = await openDonation('developer', refused);
    api.use({ 'donations.rerouteLine': () => refused });
    await user.click(
      within(dialog).getByRole('button', { name: td('donations.detail.rerouteLabel', { n: 2, description: 'Croissants' }) }),
    );
    const form = await screen.findByRole('dialog', { name: td('donations.rerouteForm.title', { n: 2 }) });
    expect(form).toHaveTextContent(/Sin frío/);
    await user.click(within(form).getByRole('combobox', { name: startingWith(td('donations.rerouteForm.destination')) }));
    expect((await dropdownOptions()).map((o) => o.textContent)).toEqual(['Compostaje']);
    await user.click(screen.getByRole('option', { name: 'Compostaje' }));
    await user.type(within(form).getByRole('textbox', { name: td('donations.rerouteForm.note') }), 'Al compost');
    await user.click(within(form).getByRole('button', { name: td('donations.rerouteForm.submit') }));
    await waitFor(() =>
      expect(api.last('donations.rerouteLine')).toEqual({
        establishment_id: ids.establishment,
        livemode: false,
        id: DONATION_ID,
        line_id: LINE_IDS[1],
        destino_id: ids.compost,
        note: 'Al compost',
      }),
    );
    await findNotification(td('donations.rerouteForm.saved', { n: 2, destination: 'Compostaje' }));
  });

  it("records the entity's answer given on paper, a reason for each refusal", async () => {
    const { user, dialog } = await openDonation('admin', donation());
    api.use({ 'donations.decide': () => donation({ status: 'accepted' }) });
    await user.click(within(dialog).getByRole('button', { name: td('donations.detail.recordAnswer') }));
    const form = await screen.findByRole('dialog', { name: td('donations.answerForm.title', { entity: 'Banco de Alimentos de Madrid' }) });
    const second = within(form).getByRole('radiogroup', { name: td('donations.answerForm.decision', { n: 2 }) });
    await user.click(within(second).getByRole('radio', { name: td('donations.lineStatus.refused') }));
    await user.click(within(form).getByRole('button', { name: td('donations.answerForm.submit') }));
    expect(within(form).getByText(td('donations.answerForm.reasonRequired'))).toBeInTheDocument();
    expect(api.inputs('donations.decide')).toHaveLength(0);
    await user.type(within(form).getByRole('textbox', { name: startingWith(td('donations.answerForm.reason', { n: 2 })) }), 'Sin frío');
    await user.click(within(form).getByRole('button', { name: td('donations.answerForm.submit') }));
    await waitFor(() =>
      expect(api.last('donations.decide')).toEqual({
        establishment_id: ids.establishment,
        livemode: false,
        id: DONATION_ID,
        lines: [
          { line_id: LINE_IDS[0], decision: 'accepted' },
          { line_id: LINE_IDS[1], decision: 'refused', reason: 'Sin frío' },
        ],
      }),
    );
    await findNotification(td('donations.answerForm.saved'));
  });
});
