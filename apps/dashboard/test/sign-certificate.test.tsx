import { MantineProvider } from '@mantine/core';
import { type CertificateToSign, SignCertificateInput } from '@merma/schema';
import { render, screen, within } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { CertificateApp } from '../src/sign/certificate/CertificateApp.tsx';
import { type CertificateClient, LinkError } from '../src/sign/client.ts';
import { changeLanguage } from '../src/sign/i18n.ts';
import { cssVariablesResolver, themeWithCloseLabel } from '../src/theme.ts';

/**
 * The certificate's page (src/sign/certificate/, `/dashboard/sign/certificate/{link_id}#dln_…`)
 * over a stand-in for its calls: the certificate as read (parties, deliveries and their total in the
 * reader's language, a test certificate, an entity outside the regime), the form's problems and
 * focus with nothing sent, the body sent, the server's refusal on its field, the signed screen, and
 * a link that no longer works for each of its reasons. The real page, server and browser:
 * apps/server/test/certificate-sign-browser.test.ts.
 */

const CERTIFICATE: CertificateToSign = {
  year: 2026,
  livemode: true,
  expires_at: '2027-01-20T10:00:00.000Z',
  entity: { name: 'Banco de Alimentos del Barrio', nif: 'G28029643', regime_opted_in: true },
  donor: { name: 'Restaurantes Sol S.L.', cif: 'B12345674', establishments: ['Cocina central', 'Sol Playa'] },
  deliveries: [
    { handed_over_on: '2026-03-12', description: 'Pan de barra', net_kg: 3, value: 4.5 },
    { handed_over_on: '2026-11-02', description: 'Manzanas', net_kg: 1250.5, value: 12340.1 },
  ],
  totals: { net_kg: 1253.5, value: 12344.6 },
  signed: null,
};

const SIGNED: CertificateToSign = {
  ...CERTIFICATE,
  signed: { name: 'Ana García', role: 'Presidenta', signed_at: '2026-12-03T11:00:00.000Z', sha256: 'cd'.repeat(32) },
};

const gone = (path: string) => new LinkError(410, 'gone', 'gone', [{ path, message: '…' }]);

/** A stand-in for the page's calls: `certificate` answers in turn, `sign` records the body and answers. */
function fakeClient(reads: (CertificateToSign | LinkError)[], signAnswers: (CertificateToSign | LinkError)[] = [], download?: LinkError) {
  const signed: SignCertificateInput[] = [];
  let downloads = 0;
  const answer = (list: (CertificateToSign | LinkError)[]) => {
    const next = list.length > 1 ? list.shift() : list[0];
    if (!next) throw new Error('no answer left');
    return next instanceof LinkError ? Promise.reject(next) : Promise.resolve(next);
  };
  const client: CertificateClient = {
    certificate: () => answer(reads),
    sign: (body) => {
      signed.push(body);
      return answer(signAnswers);
    },
    download: () => {
      downloads++;
      return Promise.reject(download ?? new LinkError(0, 'offline', 'no'));
    },
  };
  return { client, signed, downloads: () => downloads };
}

let forgotten = 0;
function renderPage(client: CertificateClient | null) {
  forgotten = 0;
  const user = userEvent.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
  render(
    <MantineProvider theme={themeWithCloseLabel('Close')} env="test" cssVariablesResolver={cssVariablesResolver}>
      <CertificateApp client={client} forget={() => forgotten++} />
    </MantineProvider>,
  );
  return user;
}

const TITLE = 'Certificate of donations received in 2026';
const signButton = () => screen.getByRole('button', { name: 'Sign the certificate' });

/** Who signs, where, and a typed signature. */
async function fillIn(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/Full name/), '  Ana García ');
  await user.type(screen.getByLabelText(/DNI, NIE or passport/), 'x-1234567-l');
  await user.type(screen.getByLabelText(/Position in the entity/), 'Presidenta');
  await user.type(screen.getByLabelText(/Place of issue/), 'Madrid');
  await user.click(screen.getByLabelText('Type my name as signature'));
  await user.type(screen.getByLabelText('Your name, as your signature'), 'Ana García');
}

/** The deliveries table's rows, each as its cells' text (Intl's no-break spaces as spaces). */
const rows = () =>
  within(screen.getByRole('table'))
    .getAllByRole('row')
    .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent?.replace(/[\u00a0\u202f]/g, ' ')));

beforeEach(() => {
  changeLanguage('en');
});

describe('the certificate’s page', () => {
  it('shows the certificate: who gives and receives, every delivery and the total in the reader’s way, what is certified', async () => {
    renderPage(fakeClient([CERTIFICATE]).client);
    const heading = await screen.findByRole('heading', { name: TITLE, level: 1 });
    await expect.poll(() => document.activeElement).toBe(heading);
    expect(screen.getByText('Article 24 of Ley 49/2002', { exact: false })).toBeInTheDocument();
    expect(screen.getByText('Restaurantes Sol S.L.')).toBeInTheDocument();
    expect(screen.getByText('CIF B12345674')).toBeInTheDocument();
    expect(screen.getByText('NIF G28029643')).toBeInTheDocument();
    expect(screen.getByText('Cocina central, Sol Playa')).toBeInTheDocument();
    // The browser speaks en-US here (test/setup.ts): its dates and figures.
    expect(rows()).toEqual([
      ['Date of handover', 'Goods', 'Kilos', 'Value (art. 18)'],
      ['Mar 12', 'Pan de barra', '3', '€4.50'],
      ['Nov 2', 'Manzanas', '1,250.5', '€12,340.10'],
      ['Total', '1,253.5', '€12,344.60'],
    ]);
    expect(screen.getByRole('table')).toHaveAccessibleName('1. Donations received (2 items)');
    expect(screen.getByText('Mar 12').closest('time')).toHaveAttribute('datetime', '2026-03-12');
    expect(screen.getByText(/irrevocably, purely and simply \(art\. 17 of Ley 49\/2002\)/)).toBeInTheDocument();
    expect(screen.getByText(/free distribution of food for human consumption/)).toBeInTheDocument();
    expect(screen.getByText('The signed certificate is written in Spanish.')).toBeInTheDocument();
    // A live certificate of an entity in the regime: no test mark, no warning.
    expect(screen.queryByText('Test certificate')).toBeNull();
    expect(screen.queryByText('These donations give no deduction')).toBeNull();
    // Headings in order: the page's, then each section's.
    expect(screen.getAllByRole('heading').map((h) => [h.tagName, h.textContent])).toEqual([
      ['H1', TITLE],
      ['H2', '1. Donations received (2 items)'],
      ['H2', '2. What the entity certifies'],
      ['H2', '3. Who signs'],
      ['H2', '4. Signature'],
    ]);
  });

  it('marks a test certificate, and warns that an entity outside the regime gives no deduction', async () => {
    const certificate = { ...CERTIFICATE, livemode: false, entity: { ...CERTIFICATE.entity, regime_opted_in: false } };
    renderPage(fakeClient([certificate]).client);
    await screen.findByRole('heading', { name: TITLE, level: 1 });
    expect(screen.getByText('Test certificate')).toBeInTheDocument();
    expect(screen.getByText('Made from test donations: it has no tax value.')).toBeInTheDocument();
    expect(screen.getByText('These donations give no deduction')).toBeInTheDocument();
    expect(screen.getByText(/not recorded as opted into the special tax regime of Ley 49\/2002/)).toBeInTheDocument();
    // Said with the certificate, not announced as an error.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getAllByRole('note')).toHaveLength(2);
  });

  it('sends nothing until who signs, where and the signature are given, and focuses the first problem', async () => {
    const { client, signed } = fakeClient([CERTIFICATE], [SIGNED]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: TITLE, level: 1 });
    await user.click(signButton());
    expect(await screen.findByRole('alert')).toHaveTextContent('5 things are missing: they are marked on the form.');
    await expect.poll(() => document.activeElement).toBe(screen.getByLabelText(/Full name/));
    // Each problem is tied to its field.
    expect(screen.getByLabelText(/Position in the entity/)).toHaveAccessibleDescription(/Type your position in the entity\./);
    expect(screen.getByLabelText(/Place of issue/)).toHaveAccessibleDescription(/Type the town where you sign\./);
    expect(screen.getByText('Draw your signature in the box, or choose to type your name.')).toBeInTheDocument();
    expect(signed).toEqual([]);

    await user.type(screen.getByLabelText(/Full name/), 'Ana García');
    await user.type(screen.getByLabelText(/DNI, NIE or passport/), '12345678Y');
    await user.click(signButton());
    await expect.poll(() => document.activeElement).toBe(screen.getByLabelText(/DNI, NIE or passport/));
    expect(screen.getByText('The letter does not match this DNI number.')).toBeInTheDocument();
    await user.clear(screen.getByLabelText(/DNI, NIE or passport/));
    await user.type(screen.getByLabelText(/DNI, NIE or passport/), '12345678Z');
    await user.type(screen.getByLabelText(/Position in the entity/), 'P');
    await user.click(signButton());
    await expect.poll(() => document.activeElement).toBe(screen.getByLabelText(/Position in the entity/));
    expect(screen.getByRole('alert')).toHaveTextContent('3 things are missing');
    expect(signed).toEqual([]);
  });

  it('sends the signature once complete, then shows who signed, the SHA-256 and the PDF to download', async () => {
    const { client, signed, downloads } = fakeClient([CERTIFICATE], [SIGNED], gone('link.expires_at'));
    const user = renderPage(client);
    await screen.findByRole('heading', { name: TITLE, level: 1 });
    await fillIn(user);
    await user.click(signButton());
    const heading = await screen.findByRole('heading', { name: 'Certificate signed', level: 1 });
    expect(signed).toEqual([
      {
        signer: { name: 'Ana García', id_document: 'X1234567L', role: 'Presidenta', signature: { kind: 'typed', text: 'Ana García' } },
        place: 'Madrid',
      },
    ]);
    // What the server will take.
    expect(SignCertificateInput.safeParse(signed[0]).success).toBe(true);
    await expect.poll(() => document.activeElement).toBe(heading);
    expect(screen.getByText(/^Signed by Ana García \(Presidenta\) on /)).toBeInTheDocument();
    expect(screen.getByTestId('certificate-sha256')).toHaveTextContent('cd'.repeat(32));
    expect(screen.getByText('2026: 2 items from Restaurantes Sol S.L., 1,253.5 kg, €12,344.60.')).toBeInTheDocument();
    expect(screen.queryByText(/already been signed/)).toBeNull();
    expect(screen.queryByText('Test certificate')).toBeNull();
    // A link that no longer downloads says so.
    await user.click(screen.getByRole('button', { name: 'Download PDF' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This link no longer downloads the certificate: ask the company that sent it.',
    );
    expect(downloads()).toBe(1);
  });

  it('puts the server’s refusal on the field it names, and keeps the answers to send again', async () => {
    const refused = new LinkError(400, 'validation_error', 'Invalid input', [
      { path: 'signer.role', message: 'Too small: expected string to have >=2 characters' },
      { path: 'place', message: 'is not a town' },
    ]);
    const { client, signed } = fakeClient([CERTIFICATE], [refused, SIGNED]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: TITLE, level: 1 });
    await fillIn(user);
    await user.click(signButton());
    expect(await screen.findByRole('alert')).toHaveTextContent('The signature was not saved: check the marked fields.');
    expect(screen.getByLabelText(/Place of issue/)).toHaveAccessibleDescription(/Not accepted: place: is not a town/);
    await expect.poll(() => document.activeElement).toBe(screen.getByLabelText(/Position in the entity/));
    expect(screen.getByLabelText(/Position in the entity/)).toHaveValue('Presidenta');
    await user.click(signButton());
    await screen.findByRole('heading', { name: 'Certificate signed', level: 1 });
    expect(signed).toHaveLength(2);
  });

  it('says so when sending found no connection, and keeps the form', async () => {
    const { client } = fakeClient([CERTIFICATE], [new LinkError(0, 'offline', 'No connection'), SIGNED]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: TITLE, level: 1 });
    await fillIn(user);
    await user.click(signButton());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not send: no connection.');
    await expect.poll(() => document.activeElement).toBe(alert);
    expect(screen.getByLabelText(/Place of issue/)).toHaveValue('Madrid');
  });

  it('shows the signed certificate, saying a second signature was not kept, when the link was used meanwhile (410, link.used_at)', async () => {
    const { client, signed } = fakeClient([CERTIFICATE, SIGNED], [gone('link.used_at')]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: TITLE, level: 1 });
    await fillIn(user);
    await user.click(signButton());
    await screen.findByRole('heading', { name: 'Certificate signed', level: 1 });
    expect(screen.getByText(/This certificate had already been signed: a second signature was not saved/)).toBeInTheDocument();
    expect(screen.getByTestId('certificate-sha256')).toHaveTextContent('cd'.repeat(32));
    expect(signed).toHaveLength(1);
    expect(forgotten).toBe(0);
  });

  it.each([
    ['link.expires_at', 'This link has expired', 'Ask the donor company for a new link to sign the certificate.', 1],
    [
      'link.replaced_at',
      'There is a newer link',
      'The donor company made a new link for this certificate and this one no longer works.',
      1,
    ],
    ['link.used_at', 'This certificate is already signed', 'It was signed through this link and takes no second signature.', 0],
  ])('opened with a 410 for %s, says “%s” and forgets a dead link’s token', async (path, title, body, forgets) => {
    renderPage(fakeClient([gone(path)]).client);
    const heading = await screen.findByRole('heading', { name: title, level: 1 });
    expect(screen.getByText(body, { exact: false })).toBeInTheDocument();
    await expect.poll(() => document.activeElement).toBe(heading);
    expect(forgotten).toBe(forgets);
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('says a link with no token, or another certificate’s (404), is not valid; offline and too many attempts offer a retry', async () => {
    renderPage(null);
    await screen.findByRole('heading', { name: 'This link is not valid', level: 1 });
    expect(screen.getByText(/ask the donor company for a new one/)).toBeInTheDocument();
    renderPage(fakeClient([new LinkError(404, 'not_found', 'no')]).client);
    await screen.findByRole('heading', { name: 'This link is not valid', level: 1 });
    expect(forgotten).toBe(1);

    const user = renderPage(
      fakeClient([new LinkError(0, 'offline', 'no'), new LinkError(429, 'rate_limited', 'slow'), CERTIFICATE]).client,
    );
    await screen.findByRole('heading', { name: 'No connection', level: 1 });
    expect(screen.getByText('The certificate could not be loaded. Check the connection and try again.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByRole('heading', { name: 'Too many attempts', level: 1 });
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByRole('heading', { name: TITLE, level: 1 });
    expect(forgotten).toBe(0);
  });

  it('speaks Spanish: the certificate, its figures, the form’s problems and the signed screen', async () => {
    changeLanguage('es');
    const { client } = fakeClient([{ ...CERTIFICATE, livemode: false }], [{ ...SIGNED, livemode: false }]);
    const user = renderPage(client);
    await screen.findByRole('heading', { name: 'Certificado de donaciones recibidas en 2026', level: 1 });
    expect(document.documentElement.lang).toBe('es');
    expect(screen.getByText('Certificado de prueba')).toBeInTheDocument();
    expect(rows()).toEqual([
      ['Fecha de entrega', 'Bienes', 'Kilos', 'Valor (art. 18)'],
      ['12 mar', 'Pan de barra', '3', '4,50 €'],
      ['2 nov', 'Manzanas', '1250,5', '12.340,10 €'],
      ['Total', '1253,5', '12.344,60 €'],
    ]);
    expect(screen.getByText(/con carácter irrevocable, puro y simple \(art\. 17 de la Ley 49\/2002\)/)).toBeInTheDocument();
    // The certificate is in Spanish: nothing to say about its language.
    expect(screen.queryByText('El certificado firmado está redactado en español.')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Firmar el certificado' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Faltan 5 datos: están marcados en el formulario.');
    expect(screen.getByLabelText(/Cargo en la entidad/)).toHaveAccessibleDescription(/Escribe tu cargo en la entidad\./);
    await user.type(screen.getByLabelText(/Nombre y apellidos/), 'Ana García');
    await user.type(screen.getByLabelText(/DNI, NIE o pasaporte/), '12345678Z');
    await user.type(screen.getByLabelText(/Cargo en la entidad/), 'Presidenta');
    await user.type(screen.getByLabelText(/Lugar de expedición/), 'Madrid');
    await user.click(screen.getByLabelText('Escribir mi nombre como firma'));
    await user.type(screen.getByLabelText('Tu nombre, como firma'), 'Ana García');
    await user.click(screen.getByRole('button', { name: 'Firmar el certificado' }));
    await screen.findByRole('heading', { name: 'Certificado firmado', level: 1 });
    // A test certificate is said to be one once signed too.
    expect(screen.getByText('Certificado de prueba')).toBeInTheDocument();
    expect(screen.getByText(/^Firmado por Ana García \(Presidenta\) el /)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Descargar PDF' })).toBeInTheDocument();
  });

  it('says a dead link in Spanish too', async () => {
    changeLanguage('es');
    renderPage(fakeClient([gone('link.replaced_at')]).client);
    await screen.findByRole('heading', { name: 'Hay un enlace más reciente', level: 1 });
    expect(screen.getByText(/La empresa donante ha creado un enlace nuevo para este certificado/)).toBeInTheDocument();
  });
});
