import { MantineProvider } from '@mantine/core';
import type { DonationNote, SignDonationInput } from '@merma/schema';
import { render, screen, within } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { LinkError, type SignClient } from '../src/sign/client.ts';
import { changeLanguage } from '../src/sign/i18n.ts';
import { SignApp } from '../src/sign/SignApp.tsx';
import { cssVariablesResolver, themeWithCloseLabel } from '../src/theme.ts';

/**
 * The signing page's screens (src/sign/SignApp.tsx) over a stand-in for its calls: the form's
 * problems and focus, the body sent, the server's refusal put on its field, a second signature, and
 * a link that no longer works. The real page, server and browser: apps/server/test/donation-sign-browser.test.ts.
 */

const ID = '0b6f3d0e-8f7a-4c1e-9a55-6d1f1c2b3a4d';
const L1 = '5f0e8a4e-1b7c-4c3a-9d8e-000000000001';
const L2 = '5f0e8a4e-1b7c-4c3a-9d8e-000000000002';

const line = (id: string, position: number, description: string): DonationNote['lines'][number] => ({
  id,
  position,
  description,
  food_category: 'bakery',
  quantity: 3,
  unit: 'kg',
  net_kg: 3,
  lot: null,
  best_before: null,
  use_by: null,
  storage: 'ambient',
  cooked: false,
  allergens: [],
  temperature_c: null,
  status: 'offered',
  refusal_reason: null,
});

const NOTE: DonationNote = {
  donation_id: ID,
  status: 'offered',
  donor: { organization: 'Restaurante Sol', cif: 'B12345674', establishment: 'Cocina central' },
  entity: { name: 'Banco de Alimentos', nif: 'G28029643' },
  offered_at: '2026-11-24T10:00:00.000Z',
  expires_at: '2026-11-26T10:00:00.000Z',
  lines: [line(L1, 1, 'Pan de barra'), line(L2, 2, 'Manzanas')],
  signed: null,
};

const SIGNED: DonationNote = {
  ...NOTE,
  status: 'accepted',
  lines: [
    { ...line(L1, 1, 'Pan de barra'), status: 'accepted' },
    { ...line(L2, 2, 'Manzanas'), status: 'refused', refusal_reason: 'No lo necesitamos' },
  ],
  signed: { name: 'Lucía Pérez', signed_at: '2026-11-24T11:00:00.000Z', sha256: 'ab'.repeat(32) },
};

/** A stand-in for the page's calls: `note` answers in turn, `sign` records the body and answers. */
function fakeClient(notes: (DonationNote | LinkError)[], signAnswers: (DonationNote | LinkError)[] = []) {
  const signed: SignDonationInput[] = [];
  const answer = (list: (DonationNote | LinkError)[]) => {
    const next = list.length > 1 ? list.shift() : list[0];
    if (!next) throw new Error('no answer left');
    return next instanceof LinkError ? Promise.reject(next) : Promise.resolve(next);
  };
  const client: SignClient = {
    note: () => answer(notes),
    sign: (body) => {
      signed.push(body);
      return answer(signAnswers);
    },
    download: () => Promise.reject(new LinkError(0, 'offline', 'no')),
  };
  return { client, signed };
}

let forgotten = 0;
function renderPage(client: SignClient | null) {
  forgotten = 0;
  const user = userEvent.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
  render(
    <MantineProvider theme={themeWithCloseLabel('Close')} env="test" cssVariablesResolver={cssVariablesResolver}>
      <SignApp client={client} forget={() => forgotten++} />
    </MantineProvider>,
  );
  return user;
}

const group = (name: string) => screen.getByRole('group', { name });

/** Answers both lines, the signer and a typed signature, and ticks the consent. */
async function fillIn(user: ReturnType<typeof userEvent.setup>) {
  await user.click(within(group('Do you accept “Pan de barra”?')).getByLabelText('Accept'));
  await user.click(within(group('Do you accept “Manzanas”?')).getByLabelText('Refuse'));
  await user.click(within(group('Reason for refusing')).getByLabelText('Not needed'));
  await user.type(screen.getByLabelText(/Full name/), 'Lucía Pérez');
  await user.type(screen.getByLabelText(/DNI, NIE or passport/), '12345678Z');
  await user.click(screen.getByLabelText('Type my name as signature'));
  await user.type(screen.getByLabelText('Your name, as your signature'), 'Lucía Pérez');
  await user.click(screen.getByRole('checkbox'));
}

beforeEach(() => {
  changeLanguage('en');
});

describe('the signing page', () => {
  it('sends nothing until every line is answered, and focuses the first problem', async () => {
    const { client, signed } = fakeClient([NOTE], [SIGNED]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: 'Receive a food donation', level: 1 });
    await user.click(screen.getByRole('button', { name: 'Sign the note' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('6 things are missing: they are marked on the form.');
    await expect.poll(() => document.activeElement).toBe(within(group('Do you accept “Pan de barra”?')).getByLabelText('Accept'));
    expect(signed).toEqual([]);

    // A refusal asks for its reason, which takes focus when it is what is missing.
    await user.click(within(group('Do you accept “Pan de barra”?')).getByLabelText('Accept'));
    await user.click(within(group('Do you accept “Manzanas”?')).getByLabelText('Refuse'));
    await user.click(screen.getByRole('button', { name: 'Sign the note' }));
    await expect.poll(() => document.activeElement).toBe(within(group('Reason for refusing')).getByLabelText('No cold storage available'));
    expect(screen.getByText('Choose a reason.')).toBeInTheDocument();
  });

  it('sends the answer and the signature once complete, then shows the signed note and its SHA-256', async () => {
    const { client, signed } = fakeClient([NOTE], [SIGNED]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: 'Receive a food donation', level: 1 });
    await fillIn(user);
    await user.click(screen.getByRole('button', { name: 'Sign the note' }));
    const heading = await screen.findByRole('heading', { name: 'Note signed', level: 1 });
    expect(signed).toEqual([
      {
        lines: [
          { line_id: L1, decision: 'accepted' },
          { line_id: L2, decision: 'refused', reason: 'No lo necesitamos' },
        ],
        signer: { name: 'Lucía Pérez', id_document: '12345678Z', signature: { kind: 'typed', text: 'Lucía Pérez' } },
      },
    ]);
    expect(screen.getByTestId('note-sha256')).toHaveTextContent('ab'.repeat(32));
    expect(screen.getByText('Refused: No lo necesitamos', { exact: false })).toBeInTheDocument();
    await expect.poll(() => document.activeElement).toBe(heading);
  });

  it('puts the server’s refusal on the field it names, and keeps the answers to send again', async () => {
    const refused = new LinkError(400, 'validation_error', 'Invalid input', [{ path: 'signer.id_document', message: 'is not valid' }]);
    const { client, signed } = fakeClient([NOTE], [refused, SIGNED]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: 'Receive a food donation', level: 1 });
    await fillIn(user);
    await user.click(screen.getByRole('button', { name: 'Sign the note' }));
    expect(await screen.findByText('Not accepted: signer.id_document: is not valid')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('The signature was not saved: check the marked fields.');
    await expect.poll(() => document.activeElement).toBe(screen.getByLabelText(/DNI, NIE or passport/));
    await user.click(screen.getByRole('button', { name: 'Sign the note' }));
    await screen.findByRole('heading', { name: 'Note signed', level: 1 });
    expect(signed).toHaveLength(2);
  });

  it('says so when sending found no connection, and keeps the form', async () => {
    const { client } = fakeClient([NOTE], [new LinkError(0, 'offline', 'No connection'), SIGNED]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: 'Receive a food donation', level: 1 });
    await fillIn(user);
    await user.click(screen.getByRole('button', { name: 'Sign the note' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not send: no connection.');
    expect(screen.getByLabelText(/Full name/)).toHaveValue('Lucía Pérez');
  });

  it('shows the signed note, saying a second signature was not kept, when the link was used meanwhile', async () => {
    const used = new LinkError(410, 'gone', 'already signed', [{ path: 'link.used_at', message: '…' }]);
    const { client } = fakeClient([NOTE, SIGNED], [used]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: 'Receive a food donation', level: 1 });
    await fillIn(user);
    await user.click(screen.getByRole('button', { name: 'Sign the note' }));
    await screen.findByRole('heading', { name: 'Note signed', level: 1 });
    expect(screen.getByText(/This donation had already been signed: a second signature was not saved/)).toBeInTheDocument();
    expect(forgotten).toBe(0);
  });

  it.each([
    ['This link has expired', new LinkError(410, 'gone', 'expired', [{ path: 'link.expires_at', message: 'has passed' }])],
    ['There is a newer link', new LinkError(410, 'gone', 'replaced', [{ path: 'link.replaced_at', message: '…' }])],
    ['This link is not valid', new LinkError(401, 'unauthorized', 'not valid')],
  ])('says “%s”, and forgets the link’s token', async (title, error) => {
    renderPage(fakeClient([error]).client);
    await screen.findByRole('heading', { name: title, level: 1 });
    expect(forgotten).toBe(1);
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('says an address without a link is not valid, and offers to try again without a connection', async () => {
    renderPage(null);
    await screen.findByRole('heading', { name: 'This link is not valid', level: 1 });
    const user = renderPage(fakeClient([new LinkError(0, 'offline', 'no'), NOTE]).client);
    await screen.findByRole('heading', { name: 'No connection', level: 1 });
    expect(forgotten).toBe(0);
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByRole('heading', { name: 'Receive a food donation', level: 1 });
  });

  it('says a donation the kitchen answered otherwise cannot be signed here', async () => {
    renderPage(fakeClient([{ ...NOTE, status: 'accepted' }]).client);
    await screen.findByRole('heading', { name: 'This donation has already been answered', level: 1 });
  });

  it('speaks Spanish too', async () => {
    changeLanguage('es');
    renderPage(fakeClient([NOTE]).client);
    await screen.findByRole('heading', { name: 'Recibir una donación de alimentos', level: 1 });
    expect(group('¿Aceptas «Manzanas»?')).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('es');
  });
});
