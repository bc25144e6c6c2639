import { Alert, Anchor, Badge, Button, Code, Group, Modal, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import type { RecordsPageInput, RecordsPageRow } from '@merma/schema/dashboard';
import { IconPencil, IconPlus, IconShieldCheck } from '@tabler/icons-react';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { CursorPager } from '../../components/Pager.tsx';
import { RecordsExportMenu } from '../../components/RecordsExportMenu.tsx';
import { useFormat } from '../../lib/format.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { FIRST_YEAR, type RecordsSearch } from '../../lib/search.ts';
import { CATEGORIES, RECORDS_PAGE_SIZE, recordsDates, recordsQuery, todayIn } from '../../lib/waste.ts';
import { trpc } from '../../trpc.ts';
import { RecordFormModal } from './RecordFormModal.tsx';

const route = getRouteApi('/app/records');

/**
 * Every record of the establishment, filtered by date, category, destination, cause and shift:
 * pages of 50 by keyset (as fast on page 1,000 as on page 1) with the count and kg of the whole
 * filtered set, a record's chain details, the chain check, the filtered records as CSV for a
 * Spanish spreadsheet or for programs, and (for everyone but viewers) adding a record or
 * correcting one by hand. Corrected records are listed on request, marked, with a link to their
 * correction.
 */
export function RecordsPage() {
  const { t } = useTranslation();
  const { establishment } = useScope();
  return (
    <Page
      title={t('records.title')}
      description={t('records.description')}
      actions={
        establishment && (
          <Group gap="sm" align="flex-start">
            <AddRecord establishmentId={establishment.id} timezone={establishment.timezone} />
            <VerifyChain establishmentId={establishment.id} />
          </Group>
        )
      }
    >
      {establishment ? <Records establishmentId={establishment.id} timezone={establishment.timezone} /> : <NoEstablishment />}
    </Page>
  );
}

function Records({ establishmentId, timezone }: { establishmentId: string; timezone: string }) {
  const { t } = useTranslation();
  const { livemode, mode } = useScope();
  const search = route.useSearch();
  const scope = { establishment_id: establishmentId, livemode };
  const query = recordsQuery(scope, search, timezone);
  // The cursors of the pages before this one (the first page has none).
  const [cursors, setCursors] = useState<string[]>([]);
  const [filterKey, setFilterKey] = useState(JSON.stringify(query));
  if (filterKey !== JSON.stringify(query)) {
    setFilterKey(JSON.stringify(query));
    setCursors([]);
  }
  const cursor = cursors.at(-1);
  const first = useSuspenseQuery(trpc.records.list.queryOptions(query));
  const later = useQuery({ ...trpc.records.list.queryOptions({ ...query, cursor: cursor ?? '' }), enabled: cursor !== undefined });
  // While the next page loads, the one shown stays (no flash of an empty table).
  const shown = useRef(first.data);
  const page = cursor === undefined ? first.data : (later.data ?? shown.current);
  shown.current = page;
  const total = first.data.total ?? 0;
  const totalKg = first.data.total_kg ?? 0;
  const offset = cursors.length * RECORDS_PAGE_SIZE;
  const format = useFormat(timezone);

  const exportUrl = (dialect: 'es' | 'plain') => {
    const params = new URLSearchParams({ establishment_id: establishmentId, mode, dialect });
    for (const key of ['from', 'to', 'food_category', 'destino_id', 'causa_id', 'shift_id'] as const) {
      const value = query[key];
      if (value) params.set(key, value);
    }
    return `/export/records.csv?${params}`;
  };

  return (
    <Stack gap="md">
      <Filters scope={scope} query={query} search={search} timezone={timezone} />
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" aria-live="polite" data-testid="records-count">
          {total === 0 ? t('records.none') : t('records.range', { from: offset + 1, to: offset + (page?.data.length ?? 0), total })}
        </Text>
        <RecordsExportMenu href={exportUrl} disabled={total === 0} />
      </Group>
      {later.error && <ErrorAlert error={later.error} />}
      <RecordsTable rows={page?.data ?? []} scope={scope} timezone={timezone} />
      <Group justify="space-between" gap="xs" wrap="wrap">
        {/* The whole filtered set, not this page: summed by the server with the list's own filters. */}
        <Text size="sm" fw={600} aria-live="polite" data-testid="records-total">
          {total > 0 &&
            t(search.corrected ? 'records.totalWithCorrected' : 'records.total', {
              count: total,
              records: format.number(total),
              kg: format.kgPrecise(totalKg),
            })}
        </Text>
        <CursorPager cursors={cursors} setCursors={setCursors} next={page?.next_cursor} loading={cursor !== undefined && later.isPending} />
      </Group>
      {search.record && <RecordModal id={search.record} scope={scope} timezone={timezone} />}
    </Stack>
  );
}

/** "Add a record", for everyone but viewers (the server refuses them too). */
function AddRecord({ establishmentId, timezone }: { establishmentId: string; timezone: string }) {
  const { t } = useTranslation();
  const { livemode, me } = useScope();
  const [open, setOpen] = useState(false);
  if (!can.writeRecords(me.role)) return null;
  return (
    <>
      <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setOpen(true)}>
        {t('records.form.add')}
      </Button>
      {open && (
        <RecordFormModal scope={{ establishment_id: establishmentId, livemode }} timezone={timezone} onClose={() => setOpen(false)} />
      )}
    </>
  );
}

/** One record's details in a dialog, by the URL's `record` (where a correction's links lead). */
function RecordModal({ id, scope, timezone }: { id: string; scope: { establishment_id: string; livemode: boolean }; timezone: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Modal
      opened
      onClose={() => void navigate({ to: '.', search: (prev) => ({ ...prev, record: undefined }) })}
      title={t('records.detail.title')}
      size="lg"
    >
      <RecordDetail id={id} scope={scope} timezone={timezone} />
    </Modal>
  );
}

function Filters({
  scope,
  query,
  search,
  timezone,
}: {
  scope: { establishment_id: string; livemode: boolean };
  query: RecordsPageInput;
  search: RecordsSearch;
  timezone: string;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { data: catalog } = useSuspenseQuery(trpc.catalog.get.queryOptions());
  const { data: shifts } = useSuspenseQuery(trpc.shifts.list.queryOptions(scope));
  const set = (change: Partial<RecordsSearch>) => void navigate({ to: '.', search: (prev) => ({ ...prev, ...change }) });
  const any = t('records.filters.any');
  return (
    <Stack gap="xs">
      <SimpleGrid
        cols={{ base: 1, xs: 2, md: 3, lg: 6 }}
        spacing="sm"
        component="form"
        role="search"
        aria-label={t('records.filters.label')}
      >
        <DateRange search={search} timezone={timezone} set={set} />
        <Select
          label={t('records.filters.category')}
          placeholder={any}
          clearable
          value={query.food_category ?? null}
          onChange={(v) => set({ category: v ?? undefined })}
          data={CATEGORIES.map((c) => ({ value: c, label: t(`categories.${c}`) }))}
        />
        <Select
          label={t('records.filters.destination')}
          placeholder={any}
          clearable
          value={query.destino_id ?? null}
          onChange={(v) => set({ destination: v ?? undefined })}
          data={catalog.destinations.map((d) => ({ value: d.id, label: d.nombre }))}
        />
        <Select
          label={t('records.filters.cause')}
          placeholder={any}
          clearable
          value={query.causa_id ?? null}
          onChange={(v) => set({ cause: v ?? undefined })}
          data={catalog.causes.map((c) => ({ value: c.id, label: c.nombre }))}
        />
        <Select
          label={t('records.filters.shift')}
          placeholder={any}
          clearable
          value={query.shift_id ?? null}
          onChange={(v) => set({ shift: v ?? undefined })}
          data={shifts.map((s) => ({ value: s.id, label: `${s.name} (${s.start_time}–${s.end_time})` }))}
        />
      </SimpleGrid>
      <Switch
        label={t('records.filters.corrected')}
        checked={search.corrected === true}
        onChange={(e) => set({ corrected: e.currentTarget.checked || undefined })}
      />
    </Stack>
  );
}

type DateKey = 'from' | 'to';

/**
 * "From" and "To" (the browser's own date fields). What is typed stays in the field, and only a
 * range the API takes goes to the URL: typing a year passes through `0002-…`, `0020-…`, a field
 * may be left half filled, and "From" may be after "To" for a moment. Until the range is good the
 * field says what is wrong and nothing is sent (the URL and the table stay as they were). A bad
 * date in the URL itself is shown the same way, and the table shows the default range meanwhile.
 */
function DateRange({ search, timezone, set }: { search: RecordsSearch; timezone: string; set: (change: Partial<RecordsSearch>) => void }) {
  const { t } = useTranslation();
  const today = todayIn(timezone);
  const applied = recordsDates(search, today);
  // The URL's own values (even bad ones), else the dates the table uses.
  const shown = { from: search.from ?? applied.from, to: search.to ?? applied.to };
  const [draft, setDraft] = useState(shown);
  // A field the browser holds half filled (or as a day that does not exist): its value reads ''.
  const [incomplete, setIncomplete] = useState<Record<DateKey, boolean>>({ from: false, to: false });
  const [synced, setSynced] = useState(shown);
  if (synced.from !== shown.from || synced.to !== shown.to) {
    // The URL changed (a date applied, the back button, a link): the fields follow it.
    setSynced(shown);
    setDraft(shown);
    setIncomplete({ from: false, to: false });
  }
  // What the fields ask for: a field still showing its default date asks for none (so "From"
  // stays the 30 days up to a "To" typed), and a half-filled one is left out until it is whole.
  const asked = (fields: Record<DateKey, string>, half: Record<DateKey, boolean>) => {
    const one = (key: DateKey) => (half[key] || (search[key] === undefined && fields[key] === applied[key]) ? undefined : fields[key]);
    return { from: one('from'), to: one('to') };
  };
  const { problems } = recordsDates(asked(draft, incomplete), today);

  const change = (key: DateKey, input: HTMLInputElement) => {
    const next = { ...draft, [key]: input.value };
    const half = { ...incomplete, [key]: input.validity.badInput };
    setDraft(next);
    setIncomplete(half);
    // Nothing is sent while either field is half filled.
    if (half.from || half.to) return;
    // Emptied: back to the default.
    if (input.value === '') return set({ [key]: undefined });
    const range = asked(next, half);
    const checked = recordsDates(range, today);
    if (checked.problems.from || checked.problems.to) return;
    set(range);
  };
  const message = (key: DateKey): string | boolean | undefined => {
    if (incomplete[key]) return t('records.filters.incomplete');
    const problem = problems[key];
    if (problem === 'afterTo') return t('records.filters.fromAfterTo');
    if (problem === 'tooEarly') return t('records.filters.tooEarly', { year: FIRST_YEAR });
    if (problem === 'invalid') return t('records.filters.invalid');
    // "To" is the other half of a range the wrong way round: marked, the message is on "From".
    return key === 'to' && problems.from === 'afterTo' ? true : undefined;
  };
  return (
    <>
      {(['from', 'to'] as const).map((key) => (
        <TextInput
          key={key}
          type="date"
          label={t(`records.filters.${key}`)}
          value={draft[key]}
          error={message(key)}
          onChange={(e) => change(key, e.currentTarget)}
        />
      ))}
    </>
  );
}

export function RecordsTable({
  rows,
  scope,
  timezone,
}: {
  rows: RecordsPageRow[];
  scope: { establishment_id: string; livemode: boolean };
  timezone: string;
}) {
  const { t } = useTranslation();
  const format = useFormat(timezone);
  const { data: catalog } = useSuspenseQuery(trpc.catalog.get.queryOptions());
  const { data: shifts } = useSuspenseQuery(trpc.shifts.list.queryOptions(scope));
  const columns: Column<RecordsPageRow>[] = [
    {
      key: 'time',
      header: t('records.columns.time'),
      render: (r) => (
        <Stack gap={2} align="flex-start">
          <span>{format.dateTime(r.occurred_at)}</span>
          {r.voided ? (
            // An undo at a kitchen station: it voids the record it names, and counts no more than it.
            <Group gap={4} wrap="nowrap">
              <Badge color="gray" variant="light" size="sm">
                {t('records.voiding')}
              </Badge>
              {r.supersedes_id && <RecordLink id={r.supersedes_id}>{t('records.seeVoided')}</RecordLink>}
            </Group>
          ) : r.superseded_by ? (
            <Group gap={4} wrap="nowrap">
              <Badge color="gray" variant="outline" size="sm">
                {t('records.superseded')}
              </Badge>
              <RecordLink id={r.superseded_by}>{t('records.seeCorrection')}</RecordLink>
            </Group>
          ) : (
            r.supersedes_id && (
              <Badge color="teal" variant="light" size="sm">
                {t('records.correction')}
              </Badge>
            )
          )}
        </Stack>
      ),
    },
    { key: 'category', header: t('records.columns.category'), render: (r) => t(`categories.${r.food_category}`) },
    { key: 'kg', header: t('records.columns.kg'), render: (r) => format.kgPrecise(r.weight_kg) },
    {
      key: 'destination',
      header: t('records.columns.destination'),
      render: (r) => catalog.destinations.find((d) => d.id === r.destino_id)?.nombre ?? r.destino_id,
    },
    {
      key: 'cause',
      header: t('records.columns.cause'),
      render: (r) => (r.causa_id ? (catalog.causes.find((c) => c.id === r.causa_id)?.nombre ?? r.causa_id) : <EmptyCell />),
    },
    { key: 'stage', header: t('records.columns.stage'), render: (r) => (r.waste_stage ? t(`stages.${r.waste_stage}`) : <EmptyCell />) },
    {
      key: 'shift',
      header: t('records.columns.shift'),
      render: (r) => (r.shift_id ? (shifts.find((s) => s.id === r.shift_id)?.name ?? <EmptyCell />) : <EmptyCell />),
    },
    { key: 'product', header: t('records.columns.product'), render: (r) => r.product_name ?? <EmptyCell /> },
  ];
  return (
    <DataTable
      caption={t('records.title')}
      columns={columns}
      rows={rows}
      rowKey={(r) => r.id}
      empty={t('records.empty')}
      renderExpanded={(r) => <RecordDetail id={r.id} scope={scope} timezone={timezone} />}
      rowLabel={(r) => t('records.rowLabel', { time: format.dateTime(r.occurred_at), kg: format.kgPrecise(r.weight_kg) })}
      minWidth={960}
    />
  );
}

/** A link that opens a record's dialog (the URL's `record`), e.g. a correction from the record it replaced. */
function RecordLink({ id, children }: { id: string; children: React.ReactNode }) {
  const navigate = useNavigate();
  return (
    <Anchor
      size="sm"
      href={`?record=${id}`}
      onClick={(e: React.MouseEvent) => {
        e.preventDefault();
        void navigate({ to: '.', search: (prev) => ({ ...prev, record: id }) });
      }}
    >
      {children}
    </Anchor>
  );
}

function RecordDetail({ id, scope, timezone }: { id: string; scope: { establishment_id: string; livemode: boolean }; timezone: string }) {
  const { t } = useTranslation();
  const format = useFormat(timezone);
  const { me } = useScope();
  const navigate = useNavigate();
  const [correcting, setCorrecting] = useState(false);
  const { data, error, isPending } = useQuery(trpc.records.get.queryOptions({ ...scope, id }));
  if (isPending) return <Text size="sm">{t('common.loading')}</Text>;
  if (error) return <ErrorAlert error={error} />;
  const r = data.record;
  const row = (label: string, value: React.ReactNode) => (
    <Group gap="xs" wrap="nowrap" align="flex-start">
      <Text size="sm" fw={600} miw={170}>
        {label}
      </Text>
      <Text size="sm" component="div" style={{ wordBreak: 'break-all' }}>
        {value}
      </Text>
    </Group>
  );
  return (
    <Stack gap={6} p="xs">
      {row(
        t('records.detail.chainPosition'),
        t('records.detail.position', { seq: format.number(data.chain_seq), length: format.number(data.chain_length) }),
      )}
      {row(t('records.detail.hash'), <Code>{r.record_hash}</Code>)}
      {row(t('records.detail.prevHash'), <Code>{data.prev_hash}</Code>)}
      {row(t('records.detail.storedAt'), format.dateTime(r.created_at))}
      {row(t('records.detail.id'), <Code>{r.id}</Code>)}
      {row(t('records.detail.source'), <Code>{r.source}</Code>)}
      {r.notes && row(t('records.detail.notes'), r.notes)}
      {r.measurement_method &&
        row(
          t('records.form.method'),
          [
            t(`methods.${r.measurement_method}`),
            r.scale_id && t('records.detail.scale', { id: r.scale_id }),
            r.tare_kg !== null && t('records.detail.tare', { kg: format.number(r.tare_kg) }),
          ]
            .filter(Boolean)
            .join(' · '),
        )}
      {r.estimated === true && !r.measurement_method && row(t('records.form.method'), t('records.detail.estimatedOnly'))}
      {r.edible && row(t('records.form.edible'), t(`edibleParts.${r.edible}`))}
      {r.hierarchy_reason &&
        row(t('records.form.reason'), [t(`hierarchyReasons.${r.hierarchy_reason}`), r.hierarchy_note].filter(Boolean).join(': '))}
      {r.transfer_document_ref && row(t('records.detail.transferDocument'), r.transfer_document_ref)}
      {r.photo_url && row(t('records.detail.photo'), <RecordPhoto recordId={r.id} url={r.photo_url} scope={scope} />)}
      {r.supersedes_id && row(t('records.detail.supersedes'), <RecordLink id={r.supersedes_id}>{r.supersedes_id}</RecordLink>)}
      {r.voided && row(t('records.detail.voided'), t('records.detail.voidedText'))}
      {/* A voiding record is its own end (superseded by itself): nothing to link to. */}
      {data.superseded_by &&
        data.superseded_by !== r.id &&
        row(t('records.detail.supersededBy'), <RecordLink id={data.superseded_by}>{data.superseded_by}</RecordLink>)}
      {/* Only the record that counts is corrected (a replaced one points to its correction). */}
      {!data.superseded_by && can.writeRecords(me.role) && (
        <Group>
          <Button variant="light" size="xs" leftSection={<IconPencil size={14} aria-hidden />} onClick={() => setCorrecting(true)}>
            {t('records.form.correct')}
          </Button>
        </Group>
      )}
      {correcting && (
        <RecordFormModal
          scope={scope}
          timezone={timezone}
          correcting={r}
          onClose={() => setCorrecting(false)}
          // The correction's own details next: the new record, which names the one it replaced.
          onSaved={(correction) => void navigate({ to: '.', search: (prev) => ({ ...prev, record: correction.id }) })}
        />
      )}
    </Stack>
  );
}

/**
 * A record's photo, opened in a tab of its own: a photo stored by Merma by its short-lived signed
 * link (asked for again every two minutes while the details are open, well inside its five), any
 * other address (an integration's own) as it was sent. Not shown inline: a bucket's links are on
 * another origin, which the page's policy does not load images from.
 */
function RecordPhoto({ recordId, url, scope }: { recordId: string; url: string; scope: { establishment_id: string; livemode: boolean } }) {
  const { t } = useTranslation();
  const photo = useQuery({
    ...trpc.records.photo.queryOptions({ ...scope, id: recordId }),
    retry: false,
    refetchInterval: 120_000,
  });
  if (photo.isPending) return <Text size="sm">{t('common.loading')}</Text>;
  const stored = photo.data;
  return (
    <Anchor href={stored ? stored.download_url : url} target="_blank" rel="noopener noreferrer" size="sm">
      {stored ? t('records.detail.openPhoto') : t('records.detail.openExternalPhoto')}
    </Anchor>
  );
}

/** Recomputes every hash of the chain on the server and says whether the register is intact. */
function VerifyChain({ establishmentId }: { establishmentId: string }) {
  const { t } = useTranslation();
  const { livemode } = useScope();
  const format = useFormat();
  const verify = useQuery({
    ...trpc.records.verify.queryOptions({ establishment_id: establishmentId, livemode }),
    enabled: false,
    gcTime: 0,
  });
  const result = verify.data;
  return (
    <Stack gap="xs" align="flex-end">
      <Button
        variant="light"
        leftSection={<IconShieldCheck size={16} aria-hidden />}
        loading={verify.isFetching}
        onClick={() => void verify.refetch()}
      >
        {t('records.verify.button')}
      </Button>
      <div aria-live="polite">
        {verify.error && <ErrorAlert error={verify.error} />}
        {result &&
          (result.valid ? (
            <Alert color="teal" variant="light" title={t('records.verify.valid')} maw={420}>
              {t('records.verify.validBody', { count: result.checked, checked: format.number(result.checked) })}
              {result.documents && result.documents.checked > 0 && (
                <> {t('records.verify.documents', { count: result.documents.checked, checked: format.number(result.documents.checked) })}</>
              )}
              {result.checkpoint && (
                <Text size="xs" mt={4}>
                  {t('records.verify.signed', {
                    seq: format.number(result.checkpoint.seq),
                    time: format.dateTime(result.checkpoint.signed_at),
                  })}
                </Text>
              )}
            </Alert>
          ) : (
            <Alert color="red" variant="light" title={t('records.verify.invalid')} maw={420}>
              {(result.first_invalid || !result.documents?.first_invalid) &&
                t(`records.verify.reasons.${result.first_invalid?.reason ?? 'hash_mismatch'}`, {
                  seq: format.number(result.first_invalid?.chain_seq ?? 0),
                })}
              {result.documents?.first_invalid && (
                <Text size="sm" mt={result.first_invalid ? 4 : 0}>
                  {t(`records.verify.documentReasons.${result.documents.first_invalid.reason}`, {
                    seq: format.number(result.documents.first_invalid.seq),
                  })}
                </Text>
              )}
            </Alert>
          ))}
      </div>
    </Stack>
  );
}
