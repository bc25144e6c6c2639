import { MAX_SIGNED_CERTIFICATE_BYTES } from '@merma/schema';
import { ROLES, type Role } from '@merma/schema/dashboard';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { i18n } from '../src/i18n/index.ts';
import { ApiError, api, network, type Output } from './support/api.ts';
import { appFixtures, emptyTaxPack } from './support/fixtures.ts';
import { findNotification, renderApp, t } from './support/render.tsx';

/**
 * The Donations page's tax pack section: the organisation's pack of a year (last year unless the
 * URL says another) in the mode shown, per company and entity, its notes worded by their codes in the
 * reader's language; the files to download; the signed certificate uploaded by owners and admins,
 * its SHA-256 shown and the pack read again; the entity's link to sign it, made by owners and admins
 * and shown once with its QR code and expiry.
 */
const td = i18n.getFixedT(null, 'donations');
const tdEs = i18n.getFixedT('es', 'donations');
const tdEn = i18n.getFixedT('en', 'donations');
beforeAll(() => i18n.loadNamespaces('donations'));

type Pack = Output<'donations.taxPack'>;
type Entity = Pack['taxpayers'][number]['entities'][number];

const BANK = 'e1a0ad9f-6b9b-4f9d-9dee-000000000011';
const CLUB = 'e1a0ad9f-6b9b-4f9d-9dee-000000000012';
const DONATION = 'd0a0ad9f-6b9b-4f9d-9dee-000000000011';
const CIF = 'B12345678';
const SHA = 'ef'.repeat(32);
/** An English note text from the API: the page words notes by their codes, never with this. */
const API_TEXT = 'VAT taxable base 0 and rate 0 % (from the API)';

const totals = (base: number, deduction: number, over: Partial<NonNullable<Entity['totals']>> = {}) => ({
  net_kg: 10,
  book_value: base,
  market_value_cap: 0,
  base,
  deductible_base: base,
  base_within_limit: base,
  base_over_limit: 0,
  deduction,
  ...over,
});

function bank(over: Partial<Entity> = {}): Entity {
  return {
    entity_id: BANK,
    name: 'Banco de Alimentos de Madrid',
    nif: 'G28029643',
    legal_form: 'banco_de_alimentos',
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    rate_pct: 50,
    recurrence: {
      years: [
        { year: 2023, base: 1000 },
        { year: 2024, base: 1200 },
      ],
      met: true,
    },
    totals: totals(700, 350, { book_value: 800, market_value_cap: 100 }),
    establishments: [],
    notes: [
      { code: 'rate_recurrence', text: 'Deduction of 50 %' },
      { code: 'market_value_cap_applied', text: 'Capped' },
    ],
    signed_certificate: null,
    ...over,
  };
}

const club: Entity = {
  ...bank(),
  entity_id: CLUB,
  name: 'Club Deportivo',
  nif: 'G46036018',
  ley_49_2002: { art2_entity: false, regime_opted_in: false },
  rate_pct: 0,
  recurrence: { years: bank().recurrence.years, met: false },
  totals: totals(80, 0),
  notes: [{ code: 'entity_not_in_regime', text: 'Outside' }],
  signed_certificate: { sha256: SHA, uploaded_at: '2026-02-10T09:00:00.000Z' },
};

function pack(year: number, livemode: boolean, entities: Entity[] = [bank(), club]): Pack {
  return {
    ...emptyTaxPack(year, livemode),
    taxpayers: [
      {
        cif: CIF,
        totals: {
          ...totals(780, 350),
          taxable_base: null,
          limit: null,
          carry_forward_until_year: null,
          notes: [{ code: 'taxable_base_limit_not_checked', text: 'Not checked' }],
        },
        entities,
        establishments: [],
        donations: [
          {
            donation_id: DONATION,
            establishment_id: '0b7a1d6e-1c55-4a4e-9a43-2f3f7e6f1a03',
            entity_id: BANK,
            handed_over_on: `${year}-03-01`,
            lines: 1,
            net_kg: 10,
            book_value: 800,
            market_value_cap: 100,
            base: 700,
            vat: { taxable_base: 0, rate_pct: 0 },
            notes: [{ code: 'vat_zero_base', text: API_TEXT }],
          },
        ],
      },
    ],
  };
}

function page(role: Role, answer: (year: number, livemode: boolean) => Pack = pack) {
  api.use({
    ...appFixtures(role),
    'donations.entities': [],
    'donations.agreements': [],
    'donations.list': { items: [], total: 0, awaiting_reroute: { lines: 0, donations: 0 } },
    'donations.taxPack': (input) => answer(input.year, input.livemode),
  });
}

/** The table of the company's entities, once the pack has come. */
const table = async (year = 2025) => screen.findByRole('table', { name: td('donations.taxPack.caption', { cif: CIF, year }) });
const rowOf = (t: HTMLElement, name: string) => within(t).getByText(name).closest('tr') as HTMLElement;

describe('tax pack: what it shows', () => {
  it('reads last year’s pack of the mode shown, and shows each entity’s status, base, rate and why, deduction and notes', async () => {
    page('viewer');
    await renderApp('/donations?mode=live');
    const entities = await table();
    // The test clock is 24 November 2026 (25 November in Madrid): last year is 2025.
    expect(api.inputs('donations.taxPack')).toContainEqual({ year: 2025, livemode: true });
    expect(screen.getByRole('combobox', { name: td('donations.taxPack.year') })).toHaveValue('2025');
    const row = rowOf(entities, 'Banco de Alimentos de Madrid');
    expect(row).toHaveTextContent('G28029643');
    expect(row).toHaveTextContent(td('donations.taxPack.status.art2'));
    expect(row).toHaveTextContent(td('donations.taxPack.status.regime'));
    expect(row).toHaveTextContent('€700.00');
    expect(row).toHaveTextContent(td('donations.taxPack.capped', { cap: '€100.00' }));
    expect(row).toHaveTextContent('50%');
    expect(row).toHaveTextContent(
      td('donations.taxPack.rate.recurrence', { first: '€1,000.00', firstYear: 2023, second: '€1,200.00', secondYear: 2024 }),
    );
    expect(row).toHaveTextContent('€350.00');
    // The notes by their codes, the donations' VAT included, the rate's own left to its column.
    const notes = [...row.querySelectorAll('[data-note]')].map((n) => n.getAttribute('data-note'));
    expect(notes).toEqual(['market_value_cap_applied', 'vat_zero_base']);
    expect(row).toHaveTextContent(td('donations.taxPack.notes.vat_zero_base'));
    expect(screen.queryByText(API_TEXT, { exact: false })).not.toBeInTheDocument();

    const other = rowOf(entities, 'Club Deportivo');
    expect(other).toHaveTextContent(td('donations.taxPack.status.outside'));
    expect(other).toHaveTextContent(td('donations.taxPack.rate.notInRegime'));
    expect(other).toHaveTextContent(td('donations.taxPack.notes.entity_not_in_regime'));
    // The company's own notes, above its table.
    expect(screen.getByText(td('donations.taxPack.notes.taxable_base_limit_not_checked'))).toBeInTheDocument();
    expect(screen.getByText(td('donations.taxPack.companyTotals', { base: '€780.00', deduction: '€350.00' }))).toBeInTheDocument();
    expect(screen.queryByText(td('donations.taxPack.testMode'))).not.toBeInTheDocument();
  });

  it('words the notes in Spanish for a Spanish reader', async () => {
    page('viewer');
    await i18n.changeLanguage('es');
    await renderApp('/donations');
    const entities = await screen.findByRole('table', { name: tdEs('donations.taxPack.caption', { cif: CIF, year: 2025 }) });
    const row = rowOf(entities, 'Banco de Alimentos de Madrid');
    expect(row).toHaveTextContent(tdEs('donations.taxPack.notes.vat_zero_base'));
    expect(row).toHaveTextContent(tdEs('donations.taxPack.notes.market_value_cap_applied'));
    expect(row).not.toHaveTextContent(tdEn('donations.taxPack.notes.vat_zero_base'));
    expect(screen.getByText(tdEs('donations.taxPack.testMode'))).toBeInTheDocument();
  });

  it('changes the year from the URL and from the selector, and says when nothing was collected', async () => {
    page('viewer', (year, livemode) => (year === 2024 ? emptyTaxPack(year, livemode) : pack(year, livemode)));
    const { user, search } = await renderApp('/donations?tax_year=2024');
    expect(await screen.findByTestId('tax-pack-empty')).toHaveTextContent(td('donations.taxPack.empty', { year: 2024 }));
    expect(api.inputs('donations.taxPack')).toContainEqual({ year: 2024, livemode: false });
    await user.click(screen.getByRole('combobox', { name: td('donations.taxPack.year') }));
    await user.click(await screen.findByRole('option', { name: '2026' }));
    await waitFor(() => expect(search().tax_year).toBe(2026));
    expect(await table(2026)).toBeInTheDocument();
    expect(api.last('donations.taxPack')).toEqual({ year: 2026, livemode: false });
  });

  it('says that a year before 2024 is not computed', async () => {
    page('viewer', (year, livemode) => emptyTaxPack(year, livemode));
    await renderApp('/donations?tax_year=2023');
    expect(await screen.findByText(td('donations.taxPack.notComputed'))).toBeInTheDocument();
  });

  it('links the pack’s CSV and PDF, each entity’s certificate to sign and the signed one received, of the year and mode', async () => {
    page('viewer');
    await renderApp('/donations?mode=live');
    const entities = await table();
    expect(screen.getByRole('link', { name: td('donations.taxPack.downloadCsvLabel', { year: 2025 }) })).toHaveAttribute(
      'href',
      '/files/donations/tax-pack.csv?year=2025&mode=live',
    );
    expect(screen.getByRole('link', { name: td('donations.taxPack.downloadPdfLabel', { year: 2025 }) })).toHaveAttribute(
      'href',
      '/files/donations/tax-pack.pdf?year=2025&mode=live',
    );
    const label = (entity: string) => ({ entity, year: 2025, cif: CIF });
    expect(
      within(entities).getByRole('link', { name: td('donations.taxPack.prefilledLabel', label('Banco de Alimentos de Madrid')) }),
    ).toHaveAttribute('href', `/files/donations/tax-pack/certificates/${BANK}.pdf?year=2025&mode=live&cif=${CIF}`);
    // The bank's signed certificate is still to come; the club's was received.
    expect(rowOf(entities, 'Banco de Alimentos de Madrid')).toHaveTextContent(td('donations.taxPack.signedNone'));
    expect(
      within(entities).queryByRole('link', { name: td('donations.taxPack.downloadSignedLabel', label('Banco de Alimentos de Madrid')) }),
    ).not.toBeInTheDocument();
    const signed = within(entities).getByRole('link', { name: td('donations.taxPack.downloadSignedLabel', label('Club Deportivo')) });
    expect(signed).toHaveAttribute('href', `/files/donations/tax-pack/certificates/${CLUB}/signed?year=2025&mode=live&cif=${CIF}`);
    expect(signed).toHaveAttribute('download');
    expect(within(rowOf(entities, 'Club Deportivo')).getByTestId('signed-received')).toBeInTheDocument();
  });
});

describe('tax pack: who uploads the signed certificate and makes the signing link', () => {
  const uploads: Record<Role, boolean> = { owner: true, admin: true, developer: false, viewer: false };
  it.each(ROLES)('%s', async (role) => {
    page(role);
    await renderApp('/donations');
    const entities = await table();
    const label = (entity: string) => ({ entity, year: 2025, cif: CIF });
    const upload = within(entities).queryByRole('button', {
      name: td('donations.taxPack.uploadSignedLabel', label('Banco de Alimentos de Madrid')),
    });
    const replace = within(entities).queryByRole('button', { name: td('donations.taxPack.replaceSignedLabel', label('Club Deportivo')) });
    const links = ['Banco de Alimentos de Madrid', 'Club Deportivo'].map((entity) =>
      within(entities).queryByRole('button', { name: td('donations.taxPack.link.actionLabel', label(entity)) }),
    );
    if (uploads[role]) {
      expect(upload).toBeInTheDocument();
      expect(replace).toBeInTheDocument();
      for (const link of links) expect(link).toHaveTextContent(td('donations.taxPack.link.action'));
      expect(screen.queryByText(td('donations.taxPack.readOnly'))).not.toBeInTheDocument();
    } else {
      expect(upload).not.toBeInTheDocument();
      expect(replace).not.toBeInTheDocument();
      for (const link of links) expect(link).not.toBeInTheDocument();
      expect(screen.getByText(td('donations.taxPack.readOnly'))).toBeInTheDocument();
    }
  });
});

describe('tax pack: uploading the signed certificate', () => {
  /** Answers the page's upload as the server would, and keeps what it was sent. */
  function answerUploads(answer: () => Response) {
    const sent: { url: string; type: string | null; bytes: number }[] = [];
    network.use(
      http.put('*/files/donations/tax-pack/certificates/:id/signed', async ({ request }) => {
        const url = new URL(request.url);
        sent.push({
          url: `${url.pathname}${url.search}`,
          type: request.headers.get('content-type'),
          bytes: (await request.arrayBuffer()).byteLength,
        });
        return answer();
      }),
    );
    onTestFinished(() => network.resetHandlers());
    return sent;
  }
  async function openUpload() {
    page('admin');
    const view = await renderApp('/donations?mode=live');
    const entities = await table();
    await view.user.click(
      within(entities).getByRole('button', {
        name: td('donations.taxPack.uploadSignedLabel', { entity: 'Banco de Alimentos de Madrid', year: 2025, cif: CIF }),
      }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: td('donations.taxPack.signed.title', { entity: 'Banco de Alimentos de Madrid', year: 2025, cif: CIF }),
    });
    return { ...view, dialog, file: within(dialog).getByLabelText(td('donations.taxPack.signed.file')) as HTMLInputElement };
  }
  const pdf = (bytes: number, name = 'certificado.pdf') => new File([new Uint8Array(bytes)], name, { type: 'application/pdf' });

  it('sends the PDF as it is for the entity, company, year and mode, shows the SHA-256 the server computed and reads the pack again', async () => {
    const sent = answerUploads(() =>
      HttpResponse.json({ entity_id: BANK, year: 2025, cif: CIF, sha256: SHA, size_bytes: 4096, uploaded_at: '2026-11-24T23:30:00.000Z' }),
    );
    const { user, dialog, file } = await openUpload();
    const reads = api.inputs('donations.taxPack').length;
    await user.upload(file, pdf(4096));
    await user.click(within(dialog).getByRole('button', { name: td('donations.taxPack.signed.send') }));
    expect(await within(dialog).findByTestId('signed-sha256')).toHaveTextContent(SHA);
    expect(sent).toEqual([
      { url: `/files/donations/tax-pack/certificates/${BANK}/signed?year=2025&mode=live&cif=${CIF}`, type: 'application/pdf', bytes: 4096 },
    ]);
    await findNotification(td('donations.taxPack.signed.uploaded', { entity: 'Banco de Alimentos de Madrid' }));
    await waitFor(() => expect(api.inputs('donations.taxPack').length).toBeGreaterThan(reads));
  });

  it('refuses a file that is not a PDF or is over 10 MiB before sending it', async () => {
    const sent = answerUploads(() => HttpResponse.json({}));
    const { user, dialog, file } = await openUpload();
    const send = within(dialog).getByRole('button', { name: td('donations.taxPack.signed.send') });
    await userEvent.setup({ applyAccept: false, delay: null }).upload(file, new File(['hola'], 'notas.txt', { type: 'text/plain' }));
    expect(within(dialog).getByText(td('donations.taxPack.signed.problems.notPdf'))).toBeInTheDocument();
    expect(send).toBeDisabled();
    await user.upload(file, pdf(MAX_SIGNED_CERTIFICATE_BYTES + 1));
    expect(within(dialog).getByText(td('donations.taxPack.signed.problems.tooLarge', { mib: 10 }))).toBeInTheDocument();
    expect(send).toBeDisabled();
    expect(file).toHaveAttribute('aria-invalid', 'true');
    expect(sent).toEqual([]);
  });

  it("shows the server's refusal in words, with the field it names", async () => {
    answerUploads(() =>
      HttpResponse.json(
        { error: 'The certificate is not a PDF', status: 400, code: 'validation_error', details: [{ path: 'body', message: 'not a PDF' }] },
        { status: 400 },
      ),
    );
    const { user, dialog, file } = await openUpload();
    await user.upload(file, pdf(100));
    await user.click(within(dialog).getByRole('button', { name: td('donations.taxPack.signed.send') }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('body: not a PDF');
    expect(within(dialog).queryByTestId('signed-sha256')).not.toBeInTheDocument();
  });
});

describe('tax pack: the entity’s signing link', () => {
  const LINK = {
    url: `https://merma.example/dashboard/sign/certificate/c0a0ad9f-6b9b-4f9d-9dee-000000000011#dln_${'B'.repeat(43)}`,
    expires_at: '2026-12-01T23:30:00.000Z',
  };
  const label = (entity: string) => ({ entity, year: 2025, cif: CIF });

  async function openLink(entity: string, role: Role = 'owner', path = '/donations?mode=live') {
    page(role);
    const view = await renderApp(path);
    const entities = await table();
    await view.user.click(within(entities).getByRole('button', { name: td('donations.taxPack.link.actionLabel', label(entity)) }));
    const dialog = await screen.findByRole('dialog', { name: td('donations.taxPack.link.title', label(entity)) });
    return { ...view, dialog };
  }

  it('says what the representative will do, makes the link for the entity, company, year, mode and life chosen, and shows it once', async () => {
    api.use({ 'donations.createCertificateLink': LINK });
    const { user, dialog } = await openLink('Banco de Alimentos de Madrid');
    expect(dialog).toHaveTextContent(td('donations.taxPack.link.intro', { ...label('Banco de Alimentos de Madrid') }));
    expect(dialog).toHaveTextContent(td('donations.taxPack.link.storedOnSigning'));
    expect(dialog).toHaveTextContent(td('donations.taxPack.link.replacesLink'));
    expect(within(dialog).getByRole('combobox', { name: td('donations.taxPack.link.lifetime') })).toHaveValue(
      td('donations.taxPack.link.days', { count: 2 }),
    );
    await user.click(within(dialog).getByRole('combobox', { name: td('donations.taxPack.link.lifetime') }));
    await user.click(await screen.findByRole('option', { name: td('donations.taxPack.link.days', { count: 7 }) }));
    expect(api.inputs('donations.createCertificateLink')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: td('donations.taxPack.link.make') }));

    expect(await within(dialog).findByRole('textbox', { name: td('donations.link.url') })).toHaveValue(LINK.url);
    expect(api.inputs('donations.createCertificateLink')).toEqual([
      { entity_id: BANK, year: 2025, cif: CIF, livemode: true, expires_in_hours: 168 },
    ]);
    expect(dialog).toHaveTextContent(td('donations.taxPack.link.warning'));
    expect(dialog).not.toHaveTextContent(td('donations.link.warning'));
    const qr = await within(dialog).findByRole('img', { name: td('donations.link.qr') });
    expect(qr.querySelector('path')?.getAttribute('d')).toMatch(/^M\d+ \d+h1v1h-1z/);
    expect(within(dialog).getByRole('button', { name: t('common.copy') })).toBeInTheDocument();
    // Until when, in the page's time (either English clock): 2 December, 00:30 in Madrid.
    expect(within(dialog).getByTestId('signing-link-expires')).toHaveTextContent(/Dec 2, 2026, 12:30 AM|2 Dec 2026, 00:30/);
    // Shown once: Escape does not close it, only its own button.
    await user.keyboard('{Escape}');
    expect(dialog).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: t('common.close') })).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: td('donations.link.done') }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('says that signing replaces the signed certificate stored, and makes a two-day link by default', async () => {
    api.use({ 'donations.createCertificateLink': LINK });
    const { user, dialog } = await openLink('Club Deportivo', 'admin', '/donations');
    expect(dialog).toHaveTextContent(td('donations.taxPack.link.replacesSigned'));
    expect(dialog).not.toHaveTextContent(td('donations.taxPack.link.storedOnSigning'));
    await user.click(within(dialog).getByRole('button', { name: td('donations.taxPack.link.make') }));
    expect(await within(dialog).findByTestId('signing-link')).toHaveValue(LINK.url);
    expect(api.last('donations.createCertificateLink')).toEqual({
      entity_id: CLUB,
      year: 2025,
      cif: CIF,
      livemode: false,
      expires_in_hours: 48,
    });
  });

  it("shows the server's refusal in words and no link; cancelling makes none", async () => {
    api.use({
      'donations.createCertificateLink': () => {
        throw new ApiError('not_found', 'No donation to this entity was handed over in 2025');
      },
    });
    const { user, dialog } = await openLink('Banco de Alimentos de Madrid');
    await user.click(within(dialog).getByRole('button', { name: td('donations.taxPack.link.make') }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(t('errors.codes.not_found'));
    expect(within(dialog).queryByTestId('signing-link')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: t('common.cancel') }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.inputs('donations.createCertificateLink')).toHaveLength(1);
  });

  it('speaks Spanish to a Spanish reader', async () => {
    api.use({ 'donations.createCertificateLink': LINK });
    await i18n.changeLanguage('es');
    page('owner');
    const { user } = await renderApp('/donations');
    const entities = await screen.findByRole('table', { name: tdEs('donations.taxPack.caption', { cif: CIF, year: 2025 }) });
    const button = within(entities).getByRole('button', {
      name: tdEs('donations.taxPack.link.actionLabel', label('Banco de Alimentos de Madrid')),
    });
    expect(button).toHaveTextContent('Enlace para firmar');
    await user.click(button);
    const dialog = await screen.findByRole('dialog', { name: tdEs('donations.taxPack.link.title', label('Banco de Alimentos de Madrid')) });
    await user.click(within(dialog).getByRole('button', { name: 'Crear el enlace' }));
    expect(await within(dialog).findByTestId('signing-link')).toHaveValue(LINK.url);
    expect(dialog).toHaveTextContent(tdEs('donations.taxPack.link.warning'));
    expect(tdEn('donations.taxPack.link.action')).toBe('Signing link');
  });
});
