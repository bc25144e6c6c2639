import { MantineProvider } from '@mantine/core';
import { deadline } from '@merma/testing';
import { render, screen, within } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type DraftLine,
  lineProblem,
  newLine,
  offerBody,
  quantityOf,
  type StationAgreement,
  settledDonation,
} from '../src/station/donation.ts';
import { DonationScreen } from '../src/station/screens/DonationScreen.tsx';
import type { StationState } from '../src/station/useStation.ts';
import { cssVariablesResolver, themeWithCloseLabel } from '../src/theme.ts';
import { network } from './support/api.ts';

/**
 * Donating at the station (src/station/screens/DonationScreen.tsx, src/station/donation.ts) over
 * stand-in answers of the station door: the agreement chosen (or not, when there is one), a line
 * typed, the offer's body and keys, the signing link's QR code and the wait until it is signed;
 * offline, nothing is sent. The real page, server and browser: apps/server/test/station-browser.test.ts.
 */

const DONATION = '0b6f3d0e-8f7a-4c1e-9a55-6d1f1c2b3a4d';
const BANCO: StationAgreement = {
  id: '5f0e8a4e-1b7c-4c3a-9d8e-000000000001',
  entity_name: 'Banco de Alimentos',
  accepted_food_categories: ['bakery', 'fruit_veg'],
  conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
  valid_until: '2027-12-31',
};
const CARITAS: StationAgreement = { ...BANCO, id: '5f0e8a4e-1b7c-4c3a-9d8e-000000000002', entity_name: 'Cáritas' };

function stationState(online = true): StationState {
  return {
    online,
    pairing: {
      token: 'stn_test_x',
      identity: { device: { id: 'd', name: 'Cocina' }, establishment: { id: 'e', name: 'Sol', timezone: 'Europe/Madrid' }, mode: 'test' },
    },
    setup: {
      categories: [
        { food_category: 'meat', uses: 5 },
        { food_category: 'bakery', uses: 2 },
        { food_category: 'fruit_veg', uses: 0 },
      ],
      causes: [],
      destinations: [],
    },
    status: { waiting: 0, refused: [], retrying: false, unpaired: false },
    unpair: async () => {},
  } as unknown as StationState;
}

type Sent = { url: string; key: string | null; body: unknown };
let sent: Sent[];
let polls: number;

function door(agreements: StationAgreement[], signAfter = 1) {
  const donation = (signed: boolean) => ({
    id: DONATION,
    status: signed ? 'accepted' : 'offered',
    entity_name: agreements[0]?.entity_name,
    offered_at: '2026-11-24T23:30:00.000Z',
    lines: [],
    signed: signed ? { name: 'Lucía Pérez', signed_at: '2026-11-24T23:35:00.000Z' } : null,
  });
  network.use(
    http.get('*/station/donations/agreements', () => HttpResponse.json({ data: agreements })),
    http.post('*/station/donations', async ({ request }) => {
      sent.push({ url: '/station/donations', key: request.headers.get('idempotency-key'), body: await request.json() });
      return HttpResponse.json({ data: { id: DONATION } }, { status: 201 });
    }),
    http.post(`*/station/donations/${DONATION}/link`, async ({ request }) => {
      sent.push({ url: 'link', key: request.headers.get('idempotency-key'), body: await request.json() });
      return HttpResponse.json(
        { data: { url: `http://localhost/dashboard/sign/${DONATION}#dln_token`, expires_at: '2026-11-26T23:30:00.000Z' } },
        { status: 201 },
      );
    }),
    http.get(`*/station/donations/${DONATION}`, () => {
      polls += 1;
      return HttpResponse.json({ data: donation(polls > signAfter) });
    }),
  );
}

function show(station = stationState()) {
  const done: string[] = [];
  render(
    <MantineProvider theme={themeWithCloseLabel('Close')} cssVariablesResolver={cssVariablesResolver}>
      <DonationScreen station={station} onDone={() => done.push('done')} />
    </MantineProvider>,
  );
  return { user: userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never }), done };
}

beforeEach(() => {
  sent = [];
  polls = 0;
});
afterEach(() => network.resetHandlers());

describe('donating at the station', () => {
  it('skips the choice of one agreement, offers a typed line, shows the QR code and then who signed', async () => {
    door([BANCO]);
    const { user } = show();
    // Only the categories the agreement accepts, in the station's order.
    const grid = await screen.findByRole('heading', { name: 'What is donated?' });
    const choices = within(grid.parentElement as HTMLElement).getAllByRole('button');
    expect(choices.map((b) => b.textContent)).toEqual(['Bakery', 'Fruit and vegetables']);
    await user.click(screen.getByRole('button', { name: 'Bakery' }));

    const offer = screen.getByRole('button', { name: 'Offer donation' });
    expect(offer).toBeDisabled();
    await user.clear(screen.getByLabelText('Description'));
    await user.type(screen.getByLabelText('Description'), 'Pan de barra');
    await user.type(screen.getByLabelText('Quantity'), '2,5');
    await user.type(screen.getByLabelText('Best before'), '2026-11-30');
    await user.click(offer);

    expect((await screen.findByRole('img', { name: 'QR code of the signing link' })).tagName.toLowerCase()).toBe('svg');
    expect(sent).toEqual([
      {
        url: '/station/donations',
        key: expect.stringMatching(/^[0-9a-f-]{36}$/),
        body: {
          agreement_id: BANCO.id,
          lines: [{ food_category: 'bakery', description: 'Pan de barra', quantity: 2.5, unit: 'kg', best_before: '2026-11-30' }],
        },
      },
      { url: 'link', key: expect.stringMatching(/^[0-9a-f-]{36}$/), body: {} },
    ]);
    expect(sent[0]?.key).not.toBe(sent[1]?.key);
    expect(screen.getByText(/^The link expires on/)).toBeInTheDocument();
    expect(screen.getByText('Waiting for the signature…')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Signed by Lucía Pérez' }, { timeout: deadline(8_000) })).toBeInTheDocument();
    expect(polls).toBe(2);
  });

  it('asks which entity when more than one agreement is in force', async () => {
    door([BANCO, CARITAS]);
    const { user } = show();
    await screen.findByRole('heading', { name: 'To which entity?' });
    await user.click(screen.getByRole('button', { name: 'Cáritas' }));
    expect(screen.getByText('For Cáritas')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Bakery' })).toBeInTheDocument();
  });

  it('says donations need the network when offline, and sends nothing', async () => {
    // No door at all: any call would be one no fixture answers, and fail the test.
    const { user, done } = show(stationState(false));
    expect(screen.getByText(/Donations need the network/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(done).toEqual(['done']);
    expect(sent).toEqual([]);
  });
});

describe("a donation's lines", () => {
  const line = (patch: Partial<DraftLine>): DraftLine => ({ ...newLine('bakery', 'Bakery'), ...patch });

  it('reads quantities with a comma or a point, to three decimals, above zero', () => {
    expect(quantityOf('2,5')).toBe(2.5);
    expect(quantityOf(' 12 ')).toBe(12);
    expect(quantityOf('0.125')).toBe(0.125);
    for (const bad of ['', '0', '1,2345', 'abc', '-1', '1e3']) expect(quantityOf(bad), bad).toBeNull();
  });

  it('offers nothing while a line lacks what it needs or is of a category the agreement does not take', () => {
    expect(lineProblem(line({ description: ' ', quantity: '1' }), BANCO)).toBe('description');
    expect(lineProblem(line({ quantity: '' }), BANCO)).toBe('quantity');
    expect(lineProblem(line({ food_category: 'meat', quantity: '1' }), BANCO)).toBe('category');
    expect(offerBody(BANCO, [])).toBeNull();
    expect(offerBody(BANCO, [line({ quantity: '1' }), line({ quantity: 'x' })])).toBeNull();
    expect(offerBody(BANCO, [line({ quantity: '3', unit: 'unit', use_by: '2026-11-26' })])).toEqual({
      agreement_id: BANCO.id,
      lines: [{ food_category: 'bakery', description: 'Bakery', quantity: 3, unit: 'unit', use_by: '2026-11-26' }],
    });
  });

  it('stops waiting once signed or answered elsewhere', () => {
    const d = { id: DONATION, entity_name: 'B', offered_at: '', lines: [] };
    expect(settledDonation(undefined)).toBe(false);
    expect(settledDonation({ ...d, status: 'offered', signed: null })).toBe(false);
    expect(settledDonation({ ...d, status: 'offered', signed: { name: 'L', signed_at: '' } })).toBe(true);
    expect(settledDonation({ ...d, status: 'refused', signed: null })).toBe(true);
  });
});
