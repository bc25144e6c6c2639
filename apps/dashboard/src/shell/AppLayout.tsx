import { Alert, AppShell, Burger, Group, Stack, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Outlet } from '@tanstack/react-router';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DeferredModals } from '../components/DeferredModals.tsx';
import { LanguageSwitcher } from '../components/LanguageSwitcher.tsx';
import { PagePending } from '../components/states.tsx';
import { DisplayTimeZone } from '../lib/format.ts';
import { useScope } from '../lib/scope.ts';
import { AccountButton } from './AccountButton.tsx';
import { Navigation } from './Navigation.tsx';
import { EstablishmentSwitcher, ModeSwitch, OrganizationSwitcher } from './ScopeControls.tsx';
import { UserPanel } from './UserPanel.tsx';

// Wide screens only (phones have the account in the drawer): a chunk of its own, see UserMenu.tsx.
const UserMenu = lazy(() => import('./UserMenu.tsx').then((m) => ({ default: m.UserMenu })));

/**
 * The screen's width as the first render sees it, not a guess corrected by an effect. The app is
 * rendered in the browser only (no server markup to match), so the first render can ask
 * `matchMedia` itself; with a guess (wide, no drawer), a phone rendered the frame twice: the
 * effect's correction moved the scope controls and the account menu, and re-rendered the frame
 * and its dialogs' provider right after the page's first commit.
 */
const screenNow = { getInitialValueInEffect: false };

/**
 * The signed-in frame: navigation, the organisation, establishment and mode every page works on,
 * the language and the user's menu. Pages render in `<main>`.
 */
export function AppLayout() {
  const { t } = useTranslation();
  const [navOpened, nav] = useDisclosure(false);
  // Wide screens show the scope controls in the header; narrow ones at the top of the navigation.
  const wide = useMediaQuery('(min-width: 62em)', undefined, screenNow);
  // Below Mantine's `sm` the navigation is a drawer behind the menu button, and the header keeps
  // only that button, the name and the mode: the account (language, signing out) moves into the
  // drawer, where a phone has room for it (Stripe's and GitHub's mobile menus do the same).
  const drawer = !useMediaQuery('(min-width: 48em)', undefined, screenNow);
  const { me, establishment } = useScope();
  // A click on the account button before the menu's code has arrived opens the menu when it does.
  const [menuAsked, setMenuAsked] = useState(false);

  const scopeControls = (
    <>
      <OrganizationSwitcher native={!wide} />
      <EstablishmentSwitcher native={!wide} />
    </>
  );

  return (
    <>
      {/* Confirmation dialogs, inside the app only: their manager mounts with the first one. */}
      <DeferredModals />
      <AppShell header={{ height: 64 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !navOpened } }} padding="lg">
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
            <Group gap="sm" wrap="nowrap">
              <Burger
                opened={navOpened}
                onClick={nav.toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label={navOpened ? t('shell.closeNavigation') : t('shell.openNavigation')}
              />
              <Text fw={700} size="lg" c="teal.9">
                {t('app.name')}
              </Text>
              {wide && scopeControls}
            </Group>
            <Group gap="sm" wrap="nowrap">
              <ModeSwitch />
              {!drawer && <LanguageSwitcher account />}
              {!drawer && (
                <Suspense fallback={<AccountButton onClick={() => setMenuAsked(true)} />}>
                  <UserMenu defaultOpened={menuAsked} />
                </Suspense>
              )}
            </Group>
          </Group>
        </AppShell.Header>

        <AppShell.Navbar p="sm" aria-label={t('nav.label')}>
          {/* The browser's own scrolling: Mantine's ScrollArea measures its content on every
              change of size, a forced layout of the page while it first renders on a phone. */}
          <Stack gap="md" style={{ flex: 1, minHeight: 0, overflowY: 'auto' }}>
            {!wide && <Stack gap="xs">{scopeControls}</Stack>}
            <Navigation onNavigate={nav.close} />
            {drawer && <UserPanel />}
          </Stack>
        </AppShell.Navbar>

        <AppShell.Main>
          <Stack gap="lg" maw={1280}>
            {!me.organization.api_enabled && (
              <Alert color="yellow" variant="light" icon={<IconAlertTriangle aria-hidden />} title={t('plan.banner.title')}>
                {t('plan.banner.body', { plan: t(`plans.${me.organization.plan}`) })}
              </Alert>
            )}
            {/* Every instant on every page is shown on the chosen establishment's clock (lib/format.ts). */}
            <DisplayTimeZone.Provider value={establishment?.timezone}>
              <Suspense fallback={<PagePending />}>
                <Outlet />
              </Suspense>
            </DisplayTimeZone.Provider>
          </Stack>
        </AppShell.Main>
      </AppShell>
    </>
  );
}
