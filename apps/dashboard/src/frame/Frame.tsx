import { AppShell, Burger, Card, Divider, Group, NavLink, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { AuthFrame } from '../components/AuthFrame.tsx';
import { Page } from '../components/Page.tsx';
import { EVERY_ROLE_SETTINGS, WASTE_PAGES } from '../shell/navItems.ts';

/**
 * A page's first frame: what the build writes into the HTML of each page (scripts/prerender.tsx),
 * so that a phone paints the page's frame, its title and what it is for as soon as the HTML and the
 * stylesheet have arrived, instead of a blank screen until the scripts have loaded and run (1.5 to
 * 2.5 s on a mid-range phone on 4G). The app replaces it when it renders (main.tsx). It is made of
 * the app's own components (Page, AuthFrame, Mantine's AppShell), so it looks as the page will;
 * what depends on the person (the organisation, the mode, their role's pages) is left out, and what
 * depends on the data is a placeholder.
 */

/** The signed-in pages that have a first frame: their address under /dashboard/, their words. */
export const FRAMED_PAGES = [
  { path: 'overview', ns: 'translation', title: 'overview.title', description: 'overview.description', body: 'overview' },
  { path: 'records', ns: 'translation', title: 'records.title', description: 'records.description', body: 'table' },
  { path: 'forecast', ns: 'translation', title: 'forecast.title', description: 'forecast.description', body: 'cards' },
  { path: 'plan', ns: 'plan', title: 'plan.page.title', description: 'plan.page.description', body: 'cards' },
  { path: 'shifts', ns: 'translation', title: 'shifts.title', description: 'shifts.description', body: 'table' },
  { path: 'products', ns: 'translation', title: 'products.title', description: 'products.description', body: 'table' },
  { path: 'donations', ns: 'donations', title: 'donations.title', description: 'donations.description', body: 'table' },
  { path: 'integrations', ns: 'integrations', title: 'integrations.title', description: 'integrations.description', body: 'table' },
  { path: 'audit', ns: 'audit', title: 'audit.title', description: 'audit.description', body: 'table' },
] as const;

export type FramedPage = (typeof FRAMED_PAGES)[number];

/** A period card's figure before it is known: a blank line of the figure's height. */
const NO_FIGURE_YET = '\u00a0';

/** The app's frame, signed in, with `page`'s title and description and placeholders for its data. */
export function SignedInFrame({ page }: { page: FramedPage }) {
  const { t } = useTranslation();
  const { t: pageT } = useTranslation(page.ns);
  const link = ({ to, label, Icon }: { to: string; label: string; Icon: (typeof WASTE_PAGES)[number]['Icon'] }) => (
    <NavLink
      key={to}
      href={`/dashboard${to}`}
      label={t(label as never)}
      leftSection={<Icon size={18} aria-hidden />}
      variant="light"
      active={to === `/${page.path}`}
    />
  );
  return (
    <AppShell header={{ height: 64 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: true } }} padding="lg">
      <AppShell.Header>
        <Group h="100%" px="md" gap="sm" wrap="nowrap">
          <Burger hiddenFrom="sm" size="sm" disabled aria-label={t('shell.openNavigation')} />
          <Text fw={700} size="lg" c="teal.9">
            {t('app.name')}
          </Text>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label={t('nav.label')}>
        <Stack gap={2}>
          {WASTE_PAGES.map(link)}
          <Divider my="sm" label={t('nav.settings')} labelPosition="left" />
          {EVERY_ROLE_SETTINGS.map(link)}
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main>
        <Stack gap="lg" maw={1280}>
          <Page title={pageT(page.title as never)} description={pageT(page.description as never)}>
            {page.body === 'overview' ? (
              <Stack gap="lg">
                <SimpleGrid cols={{ base: 1, sm: 3 }}>
                  {(['today', 'week', 'month'] as const).map((period) => (
                    // The overview's period card (OverviewPage's PeriodCard) without its figures.
                    <Card key={period} withBorder padding="md">
                      <Text size="sm" c="dimmed">
                        {t(`overview.periods.${period}`)}
                      </Text>
                      <Text fz={28} fw={700} aria-hidden>
                        {NO_FIGURE_YET}
                      </Text>
                      <Skeleton h={20} w="50%" radius="xl" />
                    </Card>
                  ))}
                </SimpleGrid>
                <Group justify="space-between" wrap="wrap">
                  <Title order={2} size="h3">
                    {t('overview.rangeHeading')}
                  </Title>
                  <Skeleton w={240} h={36} radius="md" />
                </Group>
                <Skeleton h={280} radius="md" />
              </Stack>
            ) : page.body === 'cards' ? (
              <Stack gap="md">
                <Skeleton h={160} radius="md" />
                <Skeleton h={280} radius="md" />
              </Stack>
            ) : (
              <Stack gap="xs">
                <Skeleton h={36} radius="sm" />
                {[0, 1, 2, 3, 4, 5].map((row) => (
                  <Skeleton key={row} h={28} radius="sm" />
                ))}
              </Stack>
            )}
          </Page>
        </Stack>
      </AppShell.Main>
    </AppShell>
  );
}

/** The sign-in page's frame: its card, title and description, placeholders for the form. */
export function SignInFrame() {
  const { t } = useTranslation();
  return (
    <AuthFrame
      appName={t('app.name')}
      title={t('auth.signIn.title')}
      description={t('auth.signIn.description')}
      corner={<Skeleton w={110} h={30} radius="sm" />}
    >
      <Stack gap="md">
        <Skeleton h={58} radius="sm" />
        <Skeleton h={58} radius="sm" />
        <Skeleton h={36} radius="sm" />
      </Stack>
    </AuthFrame>
  );
}
