import { MAX_AGREEMENT_DOCUMENT_BYTES } from '@merma/schema';
import { ROLES, type Role } from '@merma/schema/dashboard';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { formatLocale, i18n } from '../src/i18n/index.ts';
import { ApiError, api, network, type Output } from './support/api.ts';
import { analytics, appFixtures, ids, overviewFixtures } from './support/fixtures.ts';
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

function donations(role: Role, { entities = [entity()], agreements = [agreement()] } = {}) {
  api.use({
    ...appFixtures(role),
    'donations.entities': entities,
    'donations.agreements': (input) => (input.status ? agreements.filter((a) => a.status === input.status) : agreements),
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
    // The same lists in both modes: no call names one.
    for (const call of api.calls().filter((c) => c.path.startsWith('donations.'))) expect(call.input ?? {}).not.toHaveProperty('livemode');
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
