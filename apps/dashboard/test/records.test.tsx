import type { ChainVerification } from '@merma/schema';
import { ROLES, type Role } from '@merma/schema/dashboard';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError, api } from './support/api.ts';
import { appFixtures, ids, recordRow, recordsPage, wasteRecord } from './support/fixtures.ts';
import { expectRouteError, findNotification, renderApp, startingWith, t } from './support/render.tsx';

/** Today in Madrid at the tests' "now" (2026-11-24 23:30 UTC): the 25th, while UTC and New York are on the 24th. */
const TODAY = '2026-11-25';
const scope = { establishment_id: ids.establishment, livemode: false };

function records(role: Role = 'owner', rows = [recordRow()]) {
  api.use({ ...appFixtures(role), 'records.list': recordsPage(rows) });
}

type User = Awaited<ReturnType<typeof renderApp>>['user'];

/** Picks an option of a Mantine Select by the field's label (in `within`, the page by default). */
async function choose(user: User, label: string, option: string, where: HTMLElement = document.body) {
  await user.click(within(where).getByRole('combobox', { name: label }));
  await user.click(await within(where).findByRole('option', { name: option }));
}

/** A date or time field set as the browser's picker sets it: a whole value at once. */
function pick(input: HTMLElement, value: string) {
  fireEvent.change(input, { target: { value } });
}

/** A field by the start of its label (a required one's label ends with Mantine's asterisk). */
const field = (where: HTMLElement, label: string) => within(where).getByRole('textbox', { name: startingWith(label) });

describe('records: filters', () => {
  it('asks for the 30 days up to the establishment’s today, not the browser’s', async () => {
    records();
    await renderApp('/records');
    expect(api.last('records.list')).toEqual({ ...scope, from: '2026-10-27', to: TODAY, limit: 50 });
    expect(screen.getByLabelText(t('records.filters.to'))).toHaveValue(TODAY);
    expect(screen.getByLabelText(t('records.filters.from'))).toHaveValue('2026-10-27');
  });

  it('sends the filters of the URL it is opened at', async () => {
    records();
    await renderApp(
      `/records?from=2026-11-01&to=2026-11-10&category=dairy&destination=${ids.compost}&cause=${ids.expired}&shift=${ids.dinner}`,
    );
    expect(api.last('records.list')).toEqual({
      ...scope,
      from: '2026-11-01',
      to: '2026-11-10',
      food_category: 'dairy',
      destino_id: ids.compost,
      causa_id: ids.expired,
      shift_id: ids.dinner,
      limit: 50,
    });
    expect(screen.getByRole('combobox', { name: t('records.filters.category') })).toHaveValue(t('categories.dairy'));
    expect(screen.getByRole('combobox', { name: t('records.filters.shift') })).toHaveValue('Cenas (20:00–23:30)');
  });

  it('puts each filter chosen in the URL and in the next query', async () => {
    records();
    const { user, search } = await renderApp('/records');

    await choose(user, t('records.filters.category'), t('categories.bakery'));
    await waitFor(() => expect(search()).toMatchObject({ category: 'bakery' }));
    await waitFor(() => expect(api.last('records.list')).toMatchObject({ food_category: 'bakery' }));

    await choose(user, t('records.filters.destination'), 'Compostaje');
    await waitFor(() => expect(search()).toMatchObject({ category: 'bakery', destination: ids.compost }));
    await waitFor(() => expect(api.last('records.list')).toMatchObject({ food_category: 'bakery', destino_id: ids.compost }));

    await choose(user, t('records.filters.cause'), 'Caducado');
    await choose(user, t('records.filters.shift'), 'Comidas (12:00–16:00)');
    await waitFor(() => expect(search()).toMatchObject({ cause: ids.expired, shift: ids.lunch }));
    await waitFor(() =>
      expect(api.last('records.list')).toEqual({
        ...scope,
        from: '2026-10-27',
        to: TODAY,
        food_category: 'bakery',
        destino_id: ids.compost,
        causa_id: ids.expired,
        shift_id: ids.lunch,
        limit: 50,
      }),
    );

    await user.click(screen.getByRole('switch', { name: t('records.filters.corrected') }));
    await waitFor(() => expect(search()).toMatchObject({ corrected: true }));
    await waitFor(() => expect(api.last('records.list')).toMatchObject({ include_superseded: true }));
  });

  it('applies a date typed in "From", and refuses a "From" after "To" without sending it', async () => {
    records();
    const { search } = await renderApp('/records?to=2026-11-10');
    const from = screen.getByLabelText(t('records.filters.from'));

    pick(from, '2026-11-03');
    await waitFor(() => expect(search()).toMatchObject({ from: '2026-11-03', to: '2026-11-10' }));
    await waitFor(() => expect(api.last('records.list')).toMatchObject({ from: '2026-11-03', to: '2026-11-10' }));
    const sent = api.inputs('records.list').length;

    pick(from, '2026-11-20');
    expect(await screen.findByText(t('records.filters.fromAfterTo'))).toBeInTheDocument();
    expect(search()).toMatchObject({ from: '2026-11-03', to: '2026-11-10' });
    expect(api.inputs('records.list')).toHaveLength(sent);
  });
});

describe('records: states', () => {
  it('says so when no record matches, and offers no export', async () => {
    records('owner', []);
    await renderApp('/records');
    expect(screen.getByTestId('records-count')).toHaveTextContent(t('records.none'));
    const table = screen.getByRole('table', { name: t('records.title') });
    expect(within(table).getByText(t('records.empty'))).toBeInTheDocument();
    expect(screen.getByRole('button', { name: t('records.export.button') })).toBeDisabled();
  });

  it('lists a record with its weight to the gram and its time on the establishment’s clock', async () => {
    records('owner', [recordRow({ weight_kg: 1.235, occurred_at: '2026-11-24T23:10:00.000Z' })]);
    await renderApp('/records');
    const table = screen.getByRole('table', { name: t('records.title') });
    expect(within(table).getByText('1.235 kg')).toBeInTheDocument();
    // 23:10 UTC is 00:10 on the 25th in Madrid (not 18:10 on the 24th, the browser's New York).
    expect(within(table).getByText(/Nov 25, 2026, 12:10\s?AM GMT\+1/)).toBeInTheDocument();
    expect(screen.getByTestId('records-total')).toHaveTextContent(t('records.total', { count: 1, records: '1', kg: '1.235 kg' }));
  });

  it('marks an undo made at a kitchen station, links the record it voids, and offers no correction of it', async () => {
    const original = '7d0c9a53-0000-4000-8000-000000000001';
    const voiding = '7d0c9a53-0000-4000-8000-000000000002';
    records('owner', [recordRow({ id: voiding, supersedes_id: original, superseded_by: voiding, voided: true })]);
    await renderApp('/records');
    const table = screen.getByRole('table', { name: t('records.title') });
    expect(within(table).getByText(t('records.voiding'))).toBeInTheDocument();
    expect(within(table).getByRole('link', { name: t('records.seeVoided') })).toHaveAttribute('href', expect.stringContaining(original));
    // Not "corrected, see the correction" pointing at itself.
    expect(within(table).queryByText(t('records.superseded'))).not.toBeInTheDocument();
  });

  it('shows a refused call as the words for its code, with a way to try again', async () => {
    expectRouteError();
    api.use({
      ...appFixtures('owner'),
      'records.list': () => {
        throw new ApiError('plan_required', 'Records need the pro plan');
      },
    });
    const { heading } = await renderApp('/records');
    expect(heading).toHaveTextContent(t('errors.pageTitle'));
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent(t('errors.codes.plan_required'));
    expect(within(alert).getByRole('button', { name: t('common.retry') })).toBeInTheDocument();
  });
});

describe('records: a session that ended', () => {
  it('sends the user to sign in, to come back to the records asked for', async () => {
    records();
    const { user, router } = await renderApp('/records');
    api.use({
      'records.list': () => {
        throw new ApiError('unauthorized', 'Sign in to use the dashboard');
      },
    });
    expectRouteError();
    await choose(user, t('records.filters.category'), t('categories.dairy'));
    expect(await screen.findByRole('heading', { level: 1, name: t('auth.signIn.title') })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/sign-in');
    expect(router.state.location.search).toEqual({ redirect: '/records?mode=test&category=dairy' });
  });
});

describe('records: who may add one', () => {
  const writes: Record<Role, boolean> = { owner: true, admin: true, developer: true, viewer: false };
  it.each(ROLES)('%s', async (role) => {
    records(role);
    await renderApp('/records');
    const add = screen.queryByRole('button', { name: t('records.form.add') });
    if (writes[role]) expect(add).toBeInTheDocument();
    else expect(add).not.toBeInTheDocument();
    // Everyone may check the chain and export.
    expect(screen.getByRole('button', { name: t('records.verify.button') })).toBeInTheDocument();
  });
});

describe('records: the form to add one', () => {
  async function openForm() {
    records();
    const view = await renderApp('/records');
    await view.user.click(screen.getByRole('button', { name: t('records.form.add') }));
    const dialog = await screen.findByRole('dialog', { name: t('records.form.addTitle') });
    return { ...view, dialog };
  }

  it('says what is missing and sends nothing', async () => {
    const { user, dialog } = await openForm();
    await user.click(within(dialog).getByRole('button', { name: t('records.form.addSubmit') }));
    expect(within(dialog).getAllByText(t('records.form.required'))).toHaveLength(2);
    expect(within(dialog).getByText(t('records.form.weightInvalid'))).toBeInTheDocument();
    await user.type(field(dialog, t('records.form.weight')), '0');
    await user.click(within(dialog).getByRole('button', { name: t('records.form.addSubmit') }));
    expect(within(dialog).getByText(t('records.form.weightPositive'))).toBeInTheDocument();
    expect(api.inputs('records.create')).toHaveLength(0);
  });

  it('sends a weight typed with a decimal comma as kilograms, at the establishment’s time by default', async () => {
    const { user, dialog } = await openForm();
    api.use({ 'records.create': (input) => wasteRecord({ weight_kg: input.weight_kg ?? 0 }) });
    // The establishment's wall clock now (00:30 on the 25th in Madrid), not the browser's.
    expect(within(dialog).getByLabelText(startingWith(t('records.form.occurredAt')))).toHaveValue(`${TODAY}T00:30`);

    await choose(user, t('records.columns.category'), t('categories.bakery'), dialog);
    await user.type(field(dialog, t('records.form.weight')), '1,5');
    await choose(user, t('records.columns.destination'), 'Donación', dialog);
    await choose(user, t('records.columns.cause'), 'Sobreproducción', dialog);
    await user.type(field(dialog, t('records.columns.product')), '  Croissant ');
    await choose(user, t('records.form.method'), t('methods.estimate'), dialog);
    await user.click(within(dialog).getByRole('button', { name: t('records.form.addSubmit') }));

    await waitFor(() => expect(api.inputs('records.create')).toHaveLength(1));
    expect(api.last('records.create')).toEqual({
      ...scope,
      food_category: 'bakery',
      weight_kg: 1.5,
      destino_id: ids.donation,
      causa_id: ids.overproduction,
      waste_stage: null,
      product_name: 'Croissant',
      notes: null,
      occurred_at: `${TODAY}T00:30:00+01:00`,
      // Chosen by the person; whether it was edible was left unsaid.
      measurement_method: 'estimate',
      edible: null,
      // Donation is bakery's best step: nothing to justify.
      hierarchy_reason: null,
      hierarchy_note: null,
      // Nor waste: no transfer document asked.
      transfer_document_ref: null,
    });
    expect(within(dialog).queryByLabelText(startingWith(t('records.form.transferDocument')))).not.toBeInTheDocument();
    await findNotification(t('records.form.created'));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('asks for the transfer document only when the destination is waste, and sends it trimmed', async () => {
    const { user, dialog } = await openForm();
    api.use({ 'records.create': (input) => wasteRecord({ destino_id: input.destino_id }) });
    await choose(user, t('records.columns.category'), t('categories.fruit_veg'), dialog);
    await user.type(field(dialog, t('records.form.weight')), '3');
    await choose(user, t('records.columns.destination'), 'Donación', dialog);
    expect(within(dialog).queryByLabelText(startingWith(t('records.form.transferDocument')))).not.toBeInTheDocument();
    await choose(user, t('records.columns.destination'), 'Compostaje', dialog);
    await user.type(within(dialog).getByLabelText(startingWith(t('records.form.transferDocument'))), ' DI-28/2026/0042 ');
    await user.click(within(dialog).getByRole('button', { name: t('records.form.addSubmit') }));
    await waitFor(() => expect(api.inputs('records.create')).toHaveLength(1));
    expect(api.last('records.create')).toMatchObject({ destino_id: ids.compost, transfer_document_ref: 'DI-28/2026/0042' });
  });

  it('asks why when a food goes lower than its category reached this year, needs a note for "another reason", and sends both', async () => {
    const { user, dialog } = await openForm();
    api.use({ 'records.create': () => wasteRecord() });
    await choose(user, t('records.columns.category'), t('categories.bakery'), dialog);
    await user.type(field(dialog, t('records.form.weight')), '2');
    // Donation is bakery's best step this year: nothing to justify.
    await choose(user, t('records.columns.destination'), 'Donación', dialog);
    expect(within(dialog).queryByLabelText(startingWith(t('records.form.reason')))).not.toBeInTheDocument();
    // Compost is lower: the form asks why, naming the higher step.
    await choose(user, t('records.columns.destination'), 'Compostaje', dialog);
    expect(await within(dialog).findByText(t('records.form.reasonHint', { best: 'Donación' }))).toBeInTheDocument();
    await choose(user, t('records.form.reason'), t('hierarchyReasons.other'), dialog);
    await user.click(within(dialog).getByRole('button', { name: t('records.form.addSubmit') }));
    expect(await within(dialog).findByText(t('records.form.reasonNoteNeeded'))).toBeInTheDocument();
    expect(api.inputs('records.create')).toHaveLength(0);
    await user.type(field(dialog, t('records.form.reasonNote')), 'Pan con moho');
    await user.click(within(dialog).getByRole('button', { name: t('records.form.addSubmit') }));
    await waitFor(() => expect(api.inputs('records.create')).toHaveLength(1));
    expect(api.last('records.create')).toMatchObject({
      food_category: 'bakery',
      destino_id: ids.compost,
      hierarchy_reason: 'other',
      hierarchy_note: 'Pan con moho',
    });
  });

  it('sends a time typed in summer with the establishment’s summer offset', async () => {
    const { user, dialog } = await openForm();
    api.use({ 'records.create': () => wasteRecord() });
    await choose(user, t('records.columns.category'), t('categories.meat'), dialog);
    await user.type(field(dialog, t('records.form.weight')), '1.234,5');
    await choose(user, t('records.columns.destination'), 'Compostaje', dialog);
    const when = within(dialog).getByLabelText(startingWith(t('records.form.occurredAt')));
    pick(when, '2026-07-01T21:40');
    await user.click(within(dialog).getByRole('button', { name: t('records.form.addSubmit') }));

    await waitFor(() => expect(api.inputs('records.create')).toHaveLength(1));
    expect(api.last('records.create')).toMatchObject({ weight_kg: 1234.5, occurred_at: '2026-07-01T21:40:00+02:00' });
  });

  it('shows what the server refused under the field it names', async () => {
    const { user, dialog } = await openForm();
    api.use({
      'records.create': () => {
        throw new ApiError('validation_error', 'Invalid input', [{ path: 'weight_kg', message: 'must be at most 10000' }]);
      },
    });
    await choose(user, t('records.columns.category'), t('categories.meat'), dialog);
    await user.type(field(dialog, t('records.form.weight')), '20000');
    await choose(user, t('records.columns.destination'), 'Compostaje', dialog);
    await user.click(within(dialog).getByRole('button', { name: t('records.form.addSubmit') }));

    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(t('errors.codes.validation_error'));
    expect(field(dialog, t('records.form.weight'))).toHaveAccessibleDescription(expect.stringContaining('must be at most 10000'));
    // The form stays open with what was typed; no notification covers it.
    expect(field(dialog, t('records.form.weight'))).toHaveValue('20000');
    expect(document.querySelector('.mantine-Notification-root')).toBeNull();
  });
});

describe('records: checking the chain', () => {
  const verification = (over: Partial<ChainVerification>): ChainVerification => ({
    valid: true,
    checked: 12,
    rehashed: 12,
    head_hash: 'ab'.repeat(32),
    first_invalid: null,
    algorithm: 'sha256',
    mode: 'incremental',
    from_seq: 1,
    checkpoint: null,
    ...over,
  });
  async function check(result: ChainVerification) {
    api.use({ ...appFixtures('owner'), 'records.list': recordsPage([recordRow()]), 'records.verify': () => result });
    const { user } = await renderApp('/records');
    await user.click(screen.getByRole('button', { name: t('records.verify.button') }));
  }

  it('counts the signed notes it re-read with the records', async () => {
    await check(verification({ documents: { valid: true, checked: 3, head_hash: 'cd'.repeat(32), first_invalid: null } }));
    expect(await screen.findByText(t('records.verify.valid'))).toBeInTheDocument();
    expect(screen.getByText(t('records.verify.documents', { count: 3, checked: '3' }), { exact: false })).toBeInTheDocument();
  });

  it('says which signed note changed when the records are intact, and not that a record did', async () => {
    await check(
      verification({
        valid: false,
        documents: {
          valid: false,
          checked: 1,
          head_hash: 'cd'.repeat(32),
          first_invalid: { id: null, seq: 2, reason: 'document_changed' },
        },
      }),
    );
    expect(await screen.findByText(t('records.verify.invalid'))).toBeInTheDocument();
    expect(screen.getByText(t('records.verify.documentReasons.document_changed', { seq: '2' }))).toBeInTheDocument();
    expect(screen.queryByText(t('records.verify.reasons.hash_mismatch', { seq: '0' }))).not.toBeInTheDocument();
  });
});
