import { MantineProvider } from '@mantine/core';
import { notifications as mantines } from '@mantine/notifications';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmButton } from '../src/components/confirm.tsx';
import { DeferredModals } from '../src/components/DeferredModals.tsx';
import { DeferredToasts } from '../src/components/DeferredToasts.tsx';
import { i18n } from '../src/i18n/index.ts';
import { notifications } from '../src/lib/notify.ts';
import { buildTheme, cssVariablesResolver } from '../src/theme.ts';
import { api } from './support/api.ts';
import { appFixtures, establishment, ids, me, recordsPage } from './support/fixtures.ts';
import { renderApp } from './support/render.tsx';

const two = [establishment, { ...establishment, id: ids.otherEstablishment, name: 'Obrador' }];
const phone = window.matchMedia;

/** A screen every `min-width` query matches: the header holds the scope controls and the account menu. */
function wideScreen() {
  window.matchMedia = (query: string) => ({ ...phone(query), matches: true });
}
afterEach(() => {
  window.matchMedia = phone;
});

/**
 * What a phone's first load of a page leaves out (apps/dashboard/README.md, Performance): the
 * header's dropdowns (Mantine's Select and Menu, and Floating UI under them) load on wide screens
 * only, and the notifications' container when there is a notification to show.
 */
describe("the shell's pickers and menus", () => {
  it("on a phone, picks the establishment with the browser's own select, in the navigation", async () => {
    // Mantine's Select, were it used here, would have replaced its stand-in (the browser's select)
    // long before the page shows: its chunk is already loaded.
    await import('../src/shell/ScopeSelect.tsx');
    api.use({ ...appFixtures('owner'), 'accounts.me': me('owner', two), 'records.list': recordsPage([]) });
    const app = await renderApp('/records');
    const picker = within(screen.getByRole('navigation')).getByRole('combobox', { name: 'Establishment' });
    expect(picker.tagName).toBe('SELECT');
    expect(picker).toHaveValue(ids.establishment);
    await app.user.selectOptions(picker, 'Obrador');
    await waitFor(() => expect(app.search().establishment).toBe(ids.otherEstablishment));
    // The account is in the drawer, not behind a menu in the header.
    expect(screen.queryByRole('button', { name: 'Account menu: Ana' })).toBeNull();
    expect(within(screen.getByRole('navigation')).getByRole('button', { name: 'Sign out' })).toBeInTheDocument();
  });

  it("on a wide screen, the header's establishment picker becomes Mantine's Select, and the account button opens its menu", async () => {
    wideScreen();
    api.use({ ...appFixtures('owner'), 'accounts.me': me('owner', two), 'records.list': recordsPage([]) });
    const app = await renderApp('/records');
    const header = screen.getByRole('banner');
    await waitFor(() => expect(within(header).getByRole('combobox', { name: 'Establishment' }).tagName).toBe('INPUT'));
    await app.user.click(within(header).getByRole('combobox', { name: 'Establishment' }));
    await app.user.click(await screen.findByRole('option', { name: 'Obrador' }));
    await waitFor(() => expect(app.search().establishment).toBe(ids.otherEstablishment));

    await app.user.click(within(header).getByRole('button', { name: 'Account menu: Ana' }));
    expect(await screen.findByRole('menuitem', { name: 'Sign out' })).toBeInTheDocument();
  });

  it('mounts the notifications’ container with the first notification, and shows it', async () => {
    render(
      <MantineProvider theme={buildTheme(i18n.t)} env="test" cssVariablesResolver={cssVariablesResolver}>
        <DeferredToasts />
      </MantineProvider>,
    );
    expect(document.querySelector('.mantine-Notifications-root')).toBeNull();
    act(() => notifications.show({ message: 'Saved: 2.5 kg' }));
    expect(await screen.findByText('Saved: 2.5 kg')).toBeInTheDocument();
    expect(document.querySelector('.mantine-Notifications-root')).not.toBeNull();
    act(() => mantines.clean());
  });

  it('mounts the confirmation dialogs’ manager with the first confirmation, which then opens and confirms', async () => {
    const onConfirm = vi.fn();
    render(
      <MantineProvider theme={buildTheme(i18n.t)} env="test" cssVariablesResolver={cssVariablesResolver}>
        <DeferredModals />
        <ConfirmButton label="Revoke" title="Revoke the key?" message="Integrations using it stop working." onConfirm={onConfirm} />
      </MantineProvider>,
    );
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.querySelector('.mantine-Modal-root')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Revoke' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke the key?' });
    expect(dialog).toHaveTextContent('Integrations using it stop working.');
    expect(onConfirm).not.toHaveBeenCalled();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });
});
