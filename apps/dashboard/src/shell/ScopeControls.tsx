import { Badge, Group, NativeSelect, Switch, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useMatchRoute, useNavigate } from '@tanstack/react-router';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useScope } from '../lib/scope.ts';
import type { Mode } from '../lib/search.ts';
import { useEnterApp } from '../lib/session.ts';
import { trpc } from '../trpc.ts';

const ScopeSelect = lazy(() => import('./ScopeSelect.tsx'));

type PickerProps = {
  label: string;
  data: { value: string; label: string }[];
  value: string | null;
  onChange: (value: string) => void;
  /** The browser's own select (in the navigation, on phones and tablets), not Mantine's. */
  native: boolean;
  searchable?: boolean;
  disabled?: boolean;
  width: number;
};

/**
 * The organisation's or establishment's picker. In the header (wide screens) it is Mantine's
 * Select, searchable for long lists, whose code loads in a chunk of its own (ScopeSelect.tsx);
 * until it arrives, and wherever `native` asks for it, it is the browser's own select, the same
 * size and just as usable: phones open their own picker, with nothing more to download.
 */
function ScopePicker({ label, data, value, onChange, native, searchable = false, disabled = false, width }: PickerProps) {
  const browsers = (
    <NativeSelect
      aria-label={label}
      data={value ? data : [{ value: '', label: '—', disabled: true }, ...data]}
      value={value ?? ''}
      onChange={(event) => {
        if (event.currentTarget.value) onChange(event.currentTarget.value);
      }}
      disabled={disabled}
      size="xs"
      w={width}
    />
  );
  if (native) return browsers;
  return (
    <Suspense fallback={browsers}>
      <ScopeSelect
        aria-label={label}
        data={data}
        value={value}
        onChange={(next) => {
          if (next) onChange(next);
        }}
        allowDeselect={false}
        searchable={searchable}
        disabled={disabled}
        size="xs"
        w={width}
      />
    </Suspense>
  );
}

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
export function OrganizationSwitcher({ native }: { native: boolean }) {
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
    <ScopePicker
      label={t('shell.organization')}
      data={me.organizations.map((o) => ({ value: o.id, label: o.name }))}
      value={me.organization.id}
      onChange={(id) => {
        if (id !== me.organization.id) switchOrganization.mutate({ organization_id: id });
      }}
      disabled={switchOrganization.isPending}
      native={native}
      width={200}
    />
  );
}

/** The establishment the pages work on (kept in the URL as `?establishment=`). */
export function EstablishmentSwitcher({ native }: { native: boolean }) {
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
    <ScopePicker
      label={t('shell.establishment')}
      data={me.establishments.map((e) => ({ value: e.id, label: e.name }))}
      value={establishment?.id ?? null}
      onChange={(id) => changeScope({ establishment: id })}
      searchable={me.establishments.length > 8}
      native={native}
      width={220}
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
