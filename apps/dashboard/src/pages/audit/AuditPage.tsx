import { Alert, Box, Button, Code, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { AUDIT_ACTIONS, type AuditEntry } from '@merma/schema/dashboard';
import { useQueries, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Page } from '../../components/Page.tsx';
import { useFormat } from '../../lib/format.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import type { AuditSearch } from '../../lib/search.ts';
import { type AuditFilter, auditFilter, auditPageOptions } from '../../queries.ts';

const route = getRouteApi('/app/audit');
const isAction = (action: string) => (AUDIT_ACTIONS as readonly string[]).includes(action);

/**
 * The organisation's audit log, newest first, filtered by who (an e-mail), what (an action) and
 * which days (in the zone the page shows times in). The filters live in the URL, so a filtered log
 * can be shared and survives a reload; the server filters (an index per filter), the page only asks.
 */
export function AuditPage() {
  const { t } = useTranslation('audit');
  const { me } = useScope();
  const search = route.useSearch();
  const filter = auditFilter(search, isAction);
  return (
    <Page title={t('audit.title')} description={t('audit.description')}>
      {can.viewAudit(me.role) ? (
        <Stack gap="md">
          <Filters search={search} />
          {/* A new filter starts again from its first page. */}
          <AuditLog key={JSON.stringify(filter)} filter={filter} />
        </Stack>
      ) : (
        <Alert color="gray">{t('audit.forbidden')}</Alert>
      )}
    </Page>
  );
}

function Filters({ search }: { search: AuditSearch }) {
  const { t } = useTranslation('audit');
  const navigate = useNavigate();
  const values = { actor: search.actor ?? '', action: search.action ?? '', from: search.from ?? '', to: search.to ?? '' };
  const form = useForm({
    initialValues: values,
    validate: { from: (from, v) => (from && v.to && from > v.to ? t('audit.filters.fromAfterTo') : null) },
  });
  // The URL changed from elsewhere (back button, a link): the form shows what is applied.
  const [applied, setApplied] = useState(JSON.stringify(values));
  if (applied !== JSON.stringify(values)) {
    setApplied(JSON.stringify(values));
    form.setValues(values);
  }
  const apply = (v: typeof values) =>
    void navigate({
      to: '.',
      search: (prev) => ({
        ...prev,
        actor: v.actor.trim() || undefined,
        action: v.action || undefined,
        from: v.from || undefined,
        to: v.to || undefined,
      }),
    });
  const actions = AUDIT_ACTIONS.map((a) => ({ value: a, label: t(`audit.actions.${a}`) }));
  return (
    <Box component="form" role="search" onSubmit={form.onSubmit(apply)} aria-label={t('audit.filters.label')}>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput
          type="email"
          label={t('audit.filters.actor')}
          placeholder={t('audit.filters.actorPlaceholder')}
          w={240}
          {...form.getInputProps('actor')}
        />
        <Select
          label={t('audit.filters.action')}
          placeholder={t('audit.filters.anyAction')}
          data={actions}
          clearable
          searchable
          w={240}
          {...form.getInputProps('action')}
          onChange={(value) => form.setFieldValue('action', value ?? '')}
        />
        <TextInput type="date" label={t('audit.filters.from')} w={170} {...form.getInputProps('from')} />
        <TextInput type="date" label={t('audit.filters.to')} w={170} {...form.getInputProps('to')} />
        <Button type="submit">{t('audit.filters.apply')}</Button>
        <Button
          variant="default"
          onClick={() => {
            form.setValues({ actor: '', action: '', from: '', to: '' });
            apply({ actor: '', action: '', from: '', to: '' });
          }}
        >
          {t('audit.filters.clear')}
        </Button>
      </Group>
    </Box>
  );
}

/** Newest first; "Load more" fetches the page after the last one shown (`next_cursor`). */
function AuditLog({ filter }: { filter: AuditFilter }) {
  const { t } = useTranslation('audit');
  const format = useFormat();
  const { data: first } = useSuspenseQuery(auditPageOptions(filter));
  const [cursors, setCursors] = useState<string[]>([]);
  const more = useQueries({ queries: cursors.map((cursor) => auditPageOptions(filter, cursor)) });

  const pages = [first, ...more.flatMap((q) => (q.data ? [q.data] : []))];
  const entries = pages.flatMap((page) => page.entries);
  const last = more.at(-1);
  const loading = last?.isPending ?? false;
  const failedQuery = more.find((q) => q.error);
  const failed = failedQuery?.error;
  const nextCursor = loading || failed ? null : (pages.at(-1)?.next_cursor ?? null);
  const filtered = Object.keys(filter).length > 0;

  const columns: Column<AuditEntry>[] = [
    { key: 'time', header: t('audit.columns.time'), render: (e) => format.dateTime(e.created_at) },
    {
      key: 'actor',
      header: t('audit.columns.actor'),
      render: (e) =>
        e.actor?.email ?? (
          <Text c="dimmed" size="sm">
            {t('audit.system')}
          </Text>
        ),
    },
    { key: 'action', header: t('audit.columns.action'), render: (e) => t(`audit.actions.${e.action}`) },
    { key: 'target', header: t('audit.columns.target'), render: (e) => (e.target ? <Code>{e.target}</Code> : <EmptyCell />) },
    { key: 'ip', header: t('audit.columns.ip'), render: (e) => e.ip ?? <EmptyCell /> },
  ];

  return (
    <>
      <DataTable
        caption={t('audit.title')}
        columns={columns}
        rows={entries}
        rowKey={(e) => e.id}
        empty={filtered ? t('audit.filters.empty') : t('audit.empty')}
      />
      {failed && <ErrorAlert error={failed} />}
      {(nextCursor || loading || failed) && (
        <Group justify="center">
          <Button
            variant="default"
            loading={loading}
            onClick={() => {
              if (failedQuery) void failedQuery.refetch();
              else if (nextCursor) setCursors((list) => [...list, nextCursor]);
            }}
          >
            {t('audit.loadMore')}
          </Button>
        </Group>
      )}
    </>
  );
}
