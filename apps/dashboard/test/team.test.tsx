import { ROLES, type Role } from '@merma/schema/dashboard';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError, api } from './support/api.ts';
import { appFixtures, ids, luis, pendingInvitation, team } from './support/fixtures.ts';
import { findNotification, renderApp, startingWith, t } from './support/render.tsx';

function teamPage(role: Role) {
  api.use({ ...appFixtures(role), 'team.get': team(role) });
}

describe('team: who sees what', () => {
  const manages: Record<Role, boolean> = { owner: true, admin: true, developer: false, viewer: false };
  it.each(ROLES)('%s', async (role) => {
    teamPage(role);
    await renderApp('/team');
    const nav = screen.getByRole('navigation', { name: t('nav.label') });
    // Everyone reads the members and the invitations.
    expect(screen.getByText('luis@example.com')).toBeInTheDocument();
    expect(screen.getByText('marta@example.com')).toBeInTheDocument();
    const controls = [
      screen.queryByRole('button', { name: t('team.invite.button') }),
      screen.queryByRole('combobox', { name: t('team.members.roleOf', { name: 'Luis' }) }),
      screen.queryByRole('button', { name: t('team.members.removeNamed', { name: 'Luis' }) }),
      screen.queryByRole('button', { name: t('team.invitations.revokeNamed', { email: 'marta@example.com' }) }),
      within(nav).queryByRole('link', { name: t('nav.audit') }),
    ];
    for (const control of controls) {
      if (manages[role]) expect(control).toBeInTheDocument();
      else expect(control).not.toBeInTheDocument();
    }
    expect(screen.getByText(manages[role] ? t('team.description') : t('team.readOnly'))).toBeInTheDocument();
    // Nobody changes their own role or removes themselves here.
    expect(screen.queryByRole('combobox', { name: t('team.members.roleOf', { name: 'Ana' }) })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: t('team.members.removeNamed', { name: 'Ana' }) })).not.toBeInTheDocument();
  });
});

describe('team: changing a role', () => {
  it('sends the member and the new role', async () => {
    teamPage('admin');
    api.use({ 'team.changeRole': (input) => ({ ...luis, role: input.role }) });
    const { user } = await renderApp('/team');
    await user.click(screen.getByRole('combobox', { name: t('team.members.roleOf', { name: 'Luis' }) }));
    await user.click(await screen.findByRole('option', { name: t('roles.viewer') }));
    await waitFor(() => expect(api.last('team.changeRole')).toEqual({ user_id: ids.member, role: 'viewer' }));
    await findNotification(t('team.members.roleChanged', { name: 'Luis', role: t('roles.viewer') }));
  });

  it('raises a refusal as a notification in words', async () => {
    teamPage('owner');
    api.use({
      'team.changeRole': () => {
        throw new ApiError('conflict', 'The organisation must keep an owner');
      },
    });
    const { user } = await renderApp('/team');
    await user.click(screen.getByRole('combobox', { name: t('team.members.roleOf', { name: 'Luis' }) }));
    await user.click(await screen.findByRole('option', { name: t('roles.owner') }));
    const notification = await findNotification(t('errors.codes.conflict'));
    expect(notification).toHaveTextContent(t('errors.title'));
  });
});

describe('team: the invitation form', () => {
  async function openForm() {
    teamPage('owner');
    const view = await renderApp('/team');
    await view.user.click(screen.getByRole('button', { name: t('team.invite.button') }));
    const dialog = await screen.findByRole('dialog', { name: t('team.invite.title') });
    const email = within(dialog).getByRole('textbox', { name: startingWith(t('team.invite.email')) });
    const submit = within(dialog).getByRole('button', { name: t('team.invite.submit') });
    return { ...view, dialog, email, submit };
  }
  const invitation = (input: { email: string; role: Role }, mailed: boolean) => ({
    ...pendingInvitation,
    email: input.email,
    role: input.role,
    mailed,
    link: mailed ? null : 'http://localhost:3000/dashboard/invitation?token=abc',
  });

  it('asks for an e-mail address and sends nothing', async () => {
    const { user, dialog, email, submit } = await openForm();
    await user.type(email, 'luis.example.com');
    await user.click(submit);
    expect(within(dialog).getByText(t('validation.email'))).toBeInTheDocument();
    expect(api.inputs('team.invite')).toHaveLength(0);
  });

  it('sends the address trimmed, the role chosen and the page’s language', async () => {
    const { user, dialog, email, submit } = await openForm();
    api.use({ 'team.invite': (input) => invitation({ email: input.email, role: input.role }, true) });
    // The least privilege until the inviter chooses more.
    expect(within(dialog).getByRole('combobox', { name: startingWith(t('team.invite.role')) })).toHaveValue(t('roles.viewer'));
    await user.type(email, '  nuria@example.com ');
    await user.click(within(dialog).getByRole('combobox', { name: startingWith(t('team.invite.role')) }));
    await user.click(await within(dialog).findByRole('option', { name: t('roles.developer') }));
    await user.click(submit);
    await waitFor(() => expect(api.last('team.invite')).toEqual({ email: 'nuria@example.com', role: 'developer', language: 'en' }));
    await findNotification(t('team.invite.sent', { email: 'nuria@example.com' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('shows the link once when no e-mail could be sent', async () => {
    const { user, email, submit } = await openForm();
    api.use({ 'team.invite': (input) => invitation({ email: input.email, role: input.role }, false) });
    await user.type(email, 'nuria@example.com');
    await user.click(submit);
    const shown = await screen.findByRole('dialog', { name: t('team.invite.notMailedTitle') });
    expect(within(shown).getByDisplayValue('http://localhost:3000/dashboard/invitation?token=abc')).toBeInTheDocument();
  });

  it('says why too many invitations were refused', async () => {
    const { user, dialog, email, submit } = await openForm();
    api.use({
      'team.invite': () => {
        throw new ApiError('rate_limited', 'Too many invitations');
      },
    });
    await user.type(email, 'nuria@example.com');
    await user.click(submit);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(t('team.invite.rateLimited'));
  });
});
