import { Alert, Button, Code, Group, Text } from '@mantine/core';
import type { AuditEntry } from '@merma/schema/dashboard';
import { useQueries, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Page } from '../../components/Page.tsx';
import { useFormat } from '../../lib/format.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { auditPageOptions } from '../../queries.ts';

export function AuditPage() {
  const { t } = useTranslation();
  const { me } = useScope();
  return (
    <Page title={t('audit.title')} description={t('audit.description')}>
      {can.viewAudit(me.role) ? <AuditLog /> : <Alert color="gray">{t('audit.forbidden')}</Alert>}
    </Page>
  );
}

/** Newest first; "Load more" fetches the page after the last one shown (`next_cursor`). */
function AuditLog() {
  const { t } = useTranslation();
  const format = useFormat();
  const { data: first } = useSuspenseQuery(auditPageOptions());
  const [cursors, setCursors] = useState<string[]>([]);
  const more = useQueries({ queries: cursors.map((cursor) => auditPageOptions(cursor)) });

  const pages = [first, ...more.flatMap((q) => (q.data ? [q.data] : []))];
  const entries = pages.flatMap((page) => page.entries);
  const last = more.at(-1);
  const loading = last?.isPending ?? false;
  const failedQuery = more.find((q) => q.error);
  const failed = failedQuery?.error;
  const nextCursor = loading || failed ? null : (pages.at(-1)?.next_cursor ?? null);

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
      <DataTable caption={t('audit.title')} columns={columns} rows={entries} rowKey={(e) => e.id} empty={t('audit.empty')} />
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
