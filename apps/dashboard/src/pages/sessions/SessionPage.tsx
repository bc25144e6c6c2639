import { Badge, Card, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import type { Session } from '@merma/schema';
import { IconArrowLeft } from '@tabler/icons-react';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { CursorPager } from '../../components/Pager.tsx';
import { RecordsExportMenu } from '../../components/RecordsExportMenu.tsx';
import { useFormat } from '../../lib/format.ts';
import { useScope } from '../../lib/scope.ts';
import { sessionRecordsQuery } from '../../lib/waste.ts';
import { trpc } from '../../trpc.ts';
import { RecordsTable } from '../records/RecordsPage.tsx';

const route = getRouteApi('/app/sessions/$id');
type Scope = { establishment_id: string; livemode: boolean };

/**
 * One registration session: its figures and every record that joined it (whatever the day they
 * happened), with the records page's table — same columns, same chain details — in keyset pages,
 * and its records as CSV.
 */
export function SessionPage() {
  const { t } = useTranslation();
  const { id } = route.useParams();
  const { establishment, livemode } = useScope();
  if (!establishment) {
    return (
      <Page title={t('sessions.detail.title')}>
        <NoEstablishment />
      </Page>
    );
  }
  return <SessionDetail scope={{ establishment_id: establishment.id, livemode }} id={id} timezone={establishment.timezone} />;
}

function SessionDetail({ scope, id, timezone }: { scope: Scope; id: string; timezone: string }) {
  const { t } = useTranslation();
  const { data: session } = useSuspenseQuery(trpc.sessions.get.queryOptions({ ...scope, id }));
  return (
    <Page title={session.name} description={t('sessions.detail.description')}>
      <Stack gap="md">
        <AnchorLink to="/shifts" size="sm">
          <Group gap={4} component="span">
            <IconArrowLeft size={14} aria-hidden />
            {t('sessions.detail.back')}
          </Group>
        </AnchorLink>
        <Summary session={session} scope={scope} timezone={timezone} />
        <SessionRecords session={session} scope={scope} timezone={timezone} />
      </Stack>
    </Page>
  );
}

function Summary({ session, scope, timezone }: { session: Session; scope: Scope; timezone: string }) {
  const { t } = useTranslation();
  const format = useFormat(timezone);
  const { data: shifts } = useSuspenseQuery(trpc.shifts.list.queryOptions(scope));
  const item = (label: string, value: React.ReactNode) => (
    <Stack gap={2}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} component="div">
        {value}
      </Text>
    </Stack>
  );
  const shift = session.shift_id ? shifts.find((s) => s.id === session.shift_id)?.name : undefined;
  return (
    <Card withBorder padding="md" component="section" aria-label={t('sessions.detail.summary')}>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="md">
        {item(
          t('sessions.columns.status'),
          <Badge variant="light" color={session.status === 'open' ? 'blue' : 'gray'}>
            {t(`sessions.status.${session.status}`)}
          </Badge>,
        )}
        {item(t('sessions.columns.shift'), shift ?? <EmptyCell />)}
        {item(t('sessions.columns.started'), format.dateTime(session.started_at))}
        {item(t('sessions.columns.completed'), session.completed_at ? format.dateTime(session.completed_at) : <EmptyCell />)}
        {item(t('sessions.columns.records'), format.number(session.record_count))}
        {item(t('sessions.columns.kg'), format.kgPrecise(session.total_kg))}
      </SimpleGrid>
    </Card>
  );
}

function SessionRecords({ session, scope, timezone }: { session: Session; scope: Scope; timezone: string }) {
  const { t } = useTranslation();
  const { mode } = useScope();
  const query = sessionRecordsQuery(scope, session.id);
  // The cursors of the pages before this one (the first page has none).
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const first = useSuspenseQuery(trpc.records.list.queryOptions(query));
  const later = useQuery({ ...trpc.records.list.queryOptions({ ...query, cursor: cursor ?? '' }), enabled: cursor !== undefined });
  const shown = useRef(first.data);
  const page = cursor === undefined ? first.data : (later.data ?? shown.current);
  shown.current = page;
  const total = first.data.total ?? 0;
  const offset = cursors.length * query.limit;
  const exportUrl = (dialect: 'es' | 'plain') =>
    `/export/records.csv?${new URLSearchParams({ establishment_id: scope.establishment_id, mode, dialect, session_id: session.id })}`;
  return (
    <Stack gap="sm" component="section" aria-label={t('sessions.detail.records')}>
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" aria-live="polite" data-testid="session-records-count">
          {total === 0 ? t('sessions.detail.none') : t('records.range', { from: offset + 1, to: offset + (page?.data.length ?? 0), total })}
        </Text>
        <RecordsExportMenu href={exportUrl} disabled={total === 0} />
      </Group>
      {later.error && <ErrorAlert error={later.error} />}
      <RecordsTable rows={page?.data ?? []} scope={scope} timezone={timezone} />
      <Group justify="flex-end">
        <CursorPager cursors={cursors} setCursors={setCursors} next={page?.next_cursor} loading={cursor !== undefined && later.isPending} />
      </Group>
    </Stack>
  );
}
