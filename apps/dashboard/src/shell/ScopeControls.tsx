import { Badge, Group, Select, Switch, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useMatchRoute, useNavigate } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { useScope } from '../lib/scope.ts';
import type { Mode } from '../lib/search.ts';
import { useEnterApp } from '../lib/session.ts';
import { trpc } from '../trpc.ts';

/**
 * Changing the establishment or mode keeps the page, except an endpoint's detail page, whose
 * endpoint belongs to one establishment and mode: that one goes back to the list.
 */
function useChangeScope() {
  const navigate = useNavigate();
  const matchRoute = useMatchRoute();
  return (change: { establishment?: string; mode?: Mode }) => {
    if (matchRoute({ to: '/integrations/$id', fuzzy: true })) {
      void navigate({ to: '/integrations', search: (prev) => ({ ...prev, ...change }) });
    } else {
      void navigate({ to: '.', search: (prev) => ({ ...prev, ...change }) });
    }
  };
}

/** The organisation's name, or a switcher when the user belongs to several. */
export function OrganizationSwitcher() {
  const { t } = useTranslation();
  const { me } = useScope();
  const enterApp = useEnterApp();
  const switchOrganization = useMutation(trpc.accounts.switchOrganization.mutationOptions({ onSuccess: (next) => enterApp(next) }));

  if (me.organizations.length <= 1) {
    return (
      <Text fw={600} size="sm" truncate maw={220}>
        {me.organization.name}
      </Text>
    );
  }
  return (
    <Select
      aria-label={t('shell.organization')}
      data={me.organizations.map((o) => ({ value: o.id, label: o.name }))}
      value={me.organization.id}
      onChange={(id) => {
        if (id && id !== me.organization.id) switchOrganization.mutate({ organization_id: id });
      }}
      allowDeselect={false}
      disabled={switchOrganization.isPending}
      size="xs"
      w={200}
    />
  );
}

/** The establishment the pages work on (kept in the URL as `?establishment=`). */
export function EstablishmentSwitcher() {
  const { t } = useTranslation();
  const { me, establishment } = useScope();
  const changeScope = useChangeScope();

  if (me.establishments.length <= 1) {
    return establishment ? (
      <Text size="sm" c="dimmed" truncate maw={220}>
        {establishment.name}
      </Text>
    ) : null;
  }
  return (
    <Select
      aria-label={t('shell.establishment')}
      data={me.establishments.map((e) => ({ value: e.id, label: e.name }))}
      value={establishment?.id ?? null}
      onChange={(id) => {
        if (id) changeScope({ establishment: id });
      }}
      allowDeselect={false}
      searchable={me.establishments.length > 8}
      size="xs"
      w={220}
    />
  );
}

/** Stripe-like "Test mode": on (the default) pages show test data, off shows live data. */
export function ModeSwitch() {
  const { t } = useTranslation();
  const { mode } = useScope();
  const changeScope = useChangeScope();
  return (
    <Group gap="xs" wrap="nowrap">
      <Switch
        label={t('shell.testMode')}
        checked={mode === 'test'}
        onChange={(event) => changeScope({ mode: event.currentTarget.checked ? 'test' : 'live' })}
        color="orange"
        size="sm"
      />
      {mode === 'live' && (
        <Badge color="green" variant="light" visibleFrom="md">
          {t('shell.liveData')}
        </Badge>
      )}
    </Group>
  );
}
