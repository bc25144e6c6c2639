import { ROLES, type Role } from '@merma/schema/dashboard';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError, api } from './support/api.ts';
import { apiKey, appFixtures, ids } from './support/fixtures.ts';
import { findNotification, renderApp, startingWith, t } from './support/render.tsx';

const revokedKey = apiKey({ id: 'e2a0ad9f-6b9b-4f9d-9dee-000000000002', name: 'Antigua', revoked_at: '2026-11-10T09:00:00.000Z' });

describe('keys: who sees what', () => {
  // Every role has a line: a role added to the schema fails the typecheck until it is decided here.
  const manages: Record<Role, boolean> = { owner: true, admin: true, developer: true, viewer: false };
  it.each(ROLES)('%s', async (role) => {
    api.use({ ...appFixtures(role), 'keys.list': [apiKey(), revokedKey] });
    await renderApp('/keys');
    const nav = screen.getByRole('navigation', { name: t('nav.label') });
    if (manages[role]) {
      expect(screen.getByRole('button', { name: t('keys.create') })).toBeInTheDocument();
      expect(screen.getByRole('button', { name: t('keys.revokeNamed', { name: 'TPV cocina' }) })).toBeInTheDocument();
      // A revoked key cannot be revoked again.
      expect(screen.queryByRole('button', { name: t('keys.revokeNamed', { name: 'Antigua' }) })).not.toBeInTheDocument();
      expect(within(nav).getByRole('link', { name: t('nav.keys') })).toBeInTheDocument();
    } else {
      expect(screen.queryByRole('button', { name: t('keys.create') })).not.toBeInTheDocument();
      expect(screen.queryByRole('button', { name: t('keys.revokeNamed', { name: 'TPV cocina' }) })).not.toBeInTheDocument();
      expect(screen.getByText(t('keys.forbidden'))).toBeInTheDocument();
      expect(screen.queryByText('TPV cocina')).not.toBeInTheDocument();
      expect(within(nav).queryByRole('link', { name: t('nav.keys') })).not.toBeInTheDocument();
      // Not asked for at all: the server would refuse a viewer anyway.
      expect(api.inputs('keys.list')).toHaveLength(0);
    }
  });
});

describe('keys: states', () => {
  it('says there are none yet', async () => {
    api.use({ ...appFixtures('developer'), 'keys.list': [] });
    await renderApp('/keys');
    const table = screen.getByRole('table', { name: t('keys.caption', { establishment: 'Casa Pepe' }) });
    expect(within(table).getByText(t('keys.empty'))).toBeInTheDocument();
  });

  it('raises a refused revocation as a notification in words', async () => {
    api.use({
      ...appFixtures('admin'),
      'keys.list': [apiKey()],
      'keys.revoke': () => {
        throw new ApiError('forbidden', 'Your role (admin) cannot do this');
      },
    });
    const { user } = await renderApp('/keys');
    await user.click(screen.getByRole('button', { name: t('keys.revokeNamed', { name: 'TPV cocina' }) }));
    const confirm = await screen.findByRole('dialog', { name: t('keys.revokeTitle', { name: 'TPV cocina' }) });
    await user.click(within(confirm).getByRole('button', { name: t('keys.revoke') }));
    await waitFor(() => expect(api.last('keys.revoke')).toEqual({ establishment_id: ids.establishment, id: ids.key }));
    const notification = await findNotification(t('errors.codes.forbidden'));
    expect(notification).toHaveTextContent(t('errors.title'));
    // The key is still listed as active.
    expect(screen.getByText(t('keys.status.active'))).toBeInTheDocument();
  });
});

describe('keys: the form to create one', () => {
  async function openForm(role: Role = 'owner') {
    api.use({ ...appFixtures(role), 'keys.list': [] });
    const view = await renderApp('/keys');
    await view.user.click(screen.getByRole('button', { name: t('keys.create') }));
    const dialog = await screen.findByRole('dialog', { name: t('keys.form.title') });
    return { ...view, dialog };
  }
  const submit = (dialog: HTMLElement) => within(dialog).getByRole('button', { name: t('keys.form.submit') });

  it('asks for a name and at least one permission, and sends nothing', async () => {
    const { user, dialog } = await openForm();
    await user.click(submit(dialog));
    expect(within(dialog).getByText(t('validation.keyName'))).toBeInTheDocument();

    await user.type(within(dialog).getByRole('textbox', { name: startingWith(t('keys.form.name')) }), 'Cocina');
    await user.click(within(dialog).getByRole('checkbox', { name: t('keys.form.allPermissions') }));
    await user.click(submit(dialog));
    expect(within(dialog).getByText(t('validation.permissions'))).toBeInTheDocument();
    expect(within(dialog).queryByText(t('validation.keyName'))).not.toBeInTheDocument();
    expect(api.inputs('keys.create')).toHaveLength(0);
  });

  it('sends the name trimmed, the mode and the permissions chosen, then shows the key once', async () => {
    const { user, dialog } = await openForm('developer');
    api.use({
      'keys.create': (input) => ({ ...apiKey({ name: input.name, mode: input.mode }), key: 'svc_live_secretvalue123' }),
    });
    expect(within(dialog).getByRole('radio', { name: t('mode.test') })).toBeChecked();
    await user.type(within(dialog).getByRole('textbox', { name: startingWith(t('keys.form.name')) }), '  ERP central ');
    await user.click(within(dialog).getByRole('radio', { name: t('mode.live') }));
    await user.click(within(dialog).getByRole('checkbox', { name: t('keys.form.allPermissions') }));
    await user.click(within(dialog).getByRole('checkbox', { name: /^records:read/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: /^analytics:read/ }));
    await user.click(submit(dialog));

    await waitFor(() => expect(api.inputs('keys.create')).toHaveLength(1));
    expect(api.last('keys.create')).toEqual({
      establishment_id: ids.establishment,
      name: 'ERP central',
      mode: 'live',
      permissions: ['records:read', 'analytics:read'],
    });
    const shown = await screen.findByRole('dialog', { name: t('keys.created.title') });
    expect(within(shown).getByDisplayValue('svc_live_secretvalue123')).toBeInTheDocument();
    // Only "I have copied it" closes it; then the list is asked again.
    expect(within(shown).queryByRole('button', { name: t('common.close') })).not.toBeInTheDocument();
    await user.click(within(shown).getByRole('button', { name: t('secret.done') }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.inputs('keys.list').length).toBeGreaterThanOrEqual(2);
  });

  it('sends every permission as "*" by default', async () => {
    const { user, dialog } = await openForm();
    api.use({ 'keys.create': () => ({ ...apiKey(), key: 'svc_test_secretvalue123' }) });
    await user.type(within(dialog).getByRole('textbox', { name: startingWith(t('keys.form.name')) }), 'TPV');
    await user.click(submit(dialog));
    await waitFor(() =>
      expect(api.last('keys.create')).toEqual({ establishment_id: ids.establishment, name: 'TPV', mode: 'test', permissions: ['*'] }),
    );
  });

  it('shows a refusal inside the form, which stays open', async () => {
    const { user, dialog } = await openForm();
    api.use({
      'keys.create': () => {
        throw new ApiError('validation_error', 'Invalid input', [{ path: 'name', message: 'Too big: expected at most 80 characters' }]);
      },
    });
    await user.type(within(dialog).getByRole('textbox', { name: startingWith(t('keys.form.name')) }), 'TPV');
    await user.click(submit(dialog));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent(t('errors.codes.validation_error'));
    expect(alert).toHaveTextContent('name: Too big: expected at most 80 characters');
    expect(screen.getByRole('dialog', { name: t('keys.form.title') })).toBeInTheDocument();
  });
});
