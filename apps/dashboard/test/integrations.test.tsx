import { EVENT_TYPES } from '@merma/schema';
import { ROLES, type Role } from '@merma/schema/dashboard';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { i18n } from '../src/i18n/index.ts';
import { ApiError, api } from './support/api.ts';
import { appFixtures, ids, inbound, webhook } from './support/fixtures.ts';
import { renderApp, startingWith, t } from './support/render.tsx';

/** The Integrations page's words are a namespace of their own, loaded as the page loads them. */
const ti = i18n.getFixedT(null, 'integrations');
beforeAll(() => i18n.loadNamespaces('integrations'));

function integrations(role: Role, endpoints = [webhook()]) {
  api.use({ ...appFixtures(role), 'webhooks.list': endpoints, 'inbound.endpoint': inbound, 'integrations.list': [] });
}

describe('integrations: who sees what', () => {
  const manages: Record<Role, boolean> = { owner: true, admin: true, developer: true, viewer: false };
  it.each(ROLES)('%s', async (role) => {
    integrations(role);
    await renderApp('/integrations');
    // Everyone reads the endpoints and the inbound address.
    expect(screen.getByRole('link', { name: 'https://erp.example.com/merma' })).toBeInTheDocument();
    expect(await screen.findByDisplayValue(inbound.url)).toBeInTheDocument();
    for (const name of [
      ti('integrations.add.button'),
      ti('integrations.vendors.square.connect'),
      ti('integrations.vendors.odoo.connect'),
    ]) {
      if (manages[role]) expect(await screen.findByRole('button', { name })).toBeInTheDocument();
      else expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    }
  });
});

describe('integrations: states', () => {
  it('says there are no endpoints and no connections in this mode', async () => {
    integrations('owner', []);
    await renderApp('/integrations?mode=live');
    expect(api.last('webhooks.list')).toEqual({ establishment_id: ids.establishment, livemode: true });
    const table = screen.getByRole('table', { name: ti('integrations.endpoints') });
    expect(within(table).getByText(ti('integrations.empty'))).toBeInTheDocument();
    expect(await screen.findByText(ti('integrations.vendors.empty'))).toBeInTheDocument();
    await waitFor(() => expect(api.last('integrations.list')).toEqual({ establishment_id: ids.establishment, livemode: true }));
  });

  it('shows a failed section in words and keeps the rest of the page', async () => {
    integrations('owner');
    api.use({
      'inbound.endpoint': () => {
        throw new ApiError('not_found', 'No establishment here');
      },
    });
    await renderApp('/integrations');
    const section = screen.getByRole('region', { name: ti('integrations.inbound.title') });
    expect(await within(section).findByRole('alert')).toHaveTextContent(t('errors.codes.not_found'));
    expect(screen.getByRole('link', { name: 'https://erp.example.com/merma' })).toBeInTheDocument();
  });
});

describe('integrations: the form to add an endpoint', () => {
  async function openForm() {
    integrations('developer', []);
    const view = await renderApp('/integrations');
    await view.user.click(screen.getByRole('button', { name: ti('integrations.add.button') }));
    const dialog = await screen.findByRole('dialog', { name: ti('integrations.add.title') });
    return { ...view, dialog };
  }
  const url = (dialog: HTMLElement) => within(dialog).getByRole('textbox', { name: startingWith(ti('integrations.fields.url')) });
  const submit = (dialog: HTMLElement) => within(dialog).getByRole('button', { name: ti('integrations.add.submit') });

  it('asks for a full http(s) URL and an event, and sends nothing', async () => {
    const { user, dialog } = await openForm();
    // Every event of the contract can be chosen.
    for (const event of EVENT_TYPES) expect(within(dialog).getByRole('checkbox', { name: startingWith(event) })).toBeInTheDocument();
    await user.type(url(dialog), 'ftp://erp.example.com/hook');
    await user.click(submit(dialog));
    expect(within(dialog).getByText(t('validation.url'))).toBeInTheDocument();
    expect(within(dialog).getByText(t('validation.events'))).toBeInTheDocument();
    expect(api.inputs('webhooks.create')).toHaveLength(0);
  });

  it('sends the endpoint in the mode shown, then shows its signing secret once', async () => {
    const { user, dialog } = await openForm();
    api.use({ 'webhooks.create': (input) => ({ ...webhook({ url: input.url, events: input.events }), secret: 'whsec_shownonce' }) });
    await user.type(url(dialog), ' https://erp.example.com/in ');
    await user.click(within(dialog).getByRole('checkbox', { name: /^record\.created/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: /^plan\.generated/ }));
    await user.click(submit(dialog));

    await waitFor(() => expect(api.inputs('webhooks.create')).toHaveLength(1));
    expect(api.last('webhooks.create')).toEqual({
      establishment_id: ids.establishment,
      livemode: false,
      url: 'https://erp.example.com/in',
      events: ['record.created', 'plan.generated'],
      description: null,
    });
    const shown = await screen.findByRole('dialog', { name: ti('integrations.created.title') });
    expect(within(shown).getByDisplayValue('whsec_shownonce')).toBeInTheDocument();
  });

  it('shows the server’s refusal of the URL inside the form', async () => {
    const { user, dialog } = await openForm();
    api.use({
      'webhooks.create': () => {
        throw new ApiError('validation_error', 'The URL resolves to a private address', [
          { path: 'url', message: 'resolves to a private address' },
        ]);
      },
    });
    await user.type(url(dialog), 'http://10.0.0.1/hook');
    await user.click(within(dialog).getByRole('checkbox', { name: /^record\.created/ }));
    await user.click(submit(dialog));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(t('errors.codes.validation_error'));
    expect(alert).toHaveTextContent('url: resolves to a private address');
  });
});
