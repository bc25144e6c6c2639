import {
  Alert,
  Badge,
  Box,
  Button,
  Center,
  Container,
  Grid,
  Group,
  Loader,
  Modal,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import type { StationSetup } from '@merma/schema/dashboard';
import { normalizePairingCode, STATION_UNDO_SECONDS } from '@merma/schema/station';
import { IconCloudOff, IconCloudUpload, IconScale, IconWifi } from '@tabler/icons-react';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { changeLanguage, currentLanguage, LANGUAGES, type Language } from '../i18n/index.ts';
import { formatKg } from '../lib/decimal.ts';
import { StationError, stationApi } from './client.ts';
import { EMPTY_WEIGHT, Keypad, type TypedWeight, typedOf, weightOf } from './Keypad.tsx';
import { onUpdate } from './pwa.ts';
import { hasSerial, readScale } from './serial.ts';
import classes from './station.module.css';
import type { OutboxItem, RecordBody } from './store.ts';
import { type StationState, useStation } from './useStation.ts';

/**
 * The kitchen station (docs/decisions/0007-the-kitchen-station.md): a paired tablet at the bin.
 * A record is category → cause → destination → weight → Save: four taps and the weight. Every
 * record goes to the outbox first, so the station works the same with the network down.
 */
export function StationApp() {
  const station = useStation();
  if (!station) {
    return (
      <Center h="100vh">
        <Loader aria-label="…" />
      </Center>
    );
  }
  if (!station.pairing || station.status.unpaired) return <PairScreen station={station} />;
  return <RecordingScreen station={station} />;
}

// --- Pairing -----------------------------------------------------------------------------------

function PairScreen({ station }: { station: StationState }) {
  const { t } = useTranslation('station');
  // A QR code from the dashboard opens /dashboard/station?code=…: the code is typed for the cook.
  const [code, setCode] = useState(() => new URLSearchParams(location.search).get('code') ?? '');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    const normalized = normalizePairingCode(code);
    if (!normalized) return setError(t('station.pair.invalid'));
    setBusy(true);
    setError(undefined);
    try {
      await station.pair(normalized);
    } catch (err) {
      if (err instanceof StationError) setError(err.status === 0 ? t('station.pair.offline') : err.message);
      else throw err;
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box className={classes.shell}>
      <Container size={560} py={48}>
        <Group justify="space-between" mb="lg">
          <Title order={1}>{t('station.pair.title')}</Title>
          <LanguageControl />
        </Group>
        {station.status.unpaired && (
          <Alert color="orange" variant="light" mb="md">
            {t('station.pair.unpaired')}
          </Alert>
        )}
        <Text mb="lg">{t('station.pair.intro')}</Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <TextInput
            size="xl"
            label={t('station.pair.code')}
            description={t('station.pair.codeHint')}
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            error={error}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            styles={{ input: { letterSpacing: '0.15em', fontSize: '1.75rem', height: 64 } }}
          />
          <Button type="submit" size="xl" h={64} mt="lg" fullWidth loading={busy}>
            {t('station.pair.submit')}
          </Button>
        </form>
      </Container>
    </Box>
  );
}

/** A segmented control's options as tall as every other target of the station (48 px). */
const TALL_SEGMENTS = { label: { minHeight: 48, display: 'flex', alignItems: 'center', justifyContent: 'center' } } as const;

/** A dialog's close button as large as the station's other targets. */
const bigClose = (label: string) => ({ 'aria-label': label, size: 'xl', style: { width: 48, height: 48 } }) as const;

function LanguageControl() {
  const { t, i18n } = useTranslation('station');
  return (
    <SegmentedControl
      aria-label={t('station.header.language')}
      size="md"
      styles={TALL_SEGMENTS}
      value={i18n.resolvedLanguage ?? currentLanguage()}
      onChange={(v) => changeLanguage(v as Language)}
      data={LANGUAGES.map((l) => ({ value: l, label: l.toUpperCase() }))}
    />
  );
}

// --- Recording ---------------------------------------------------------------------------------

type Flow = {
  category?: string;
  /** null: "no cause" chosen. */
  cause?: string | null;
  destination?: string;
  typed: TypedWeight;
  /** Optional details, given at the weight step ("More details"). */
  details?: Details;
  /** The refused outbox item this flow corrects, if any. */
  correcting?: number;
};
const START: Flow = { typed: EMPTY_WEIGHT };
type Details = { waste_stage: string | null; product_name: string; notes: string };
const NO_DETAILS: Details = { waste_stage: null, product_name: '', notes: '' };
const STAGES = ['receiving', 'storage', 'preparation', 'service', 'post_service'] as const;
type Step = 'category' | 'cause' | 'destination' | 'weight';
const stepOf = (f: Flow): Step =>
  f.category === undefined ? 'category' : f.cause === undefined ? 'cause' : f.destination === undefined ? 'destination' : 'weight';

/** The catalogue's names in the station's language: the server's (Spanish) names are the fallback. */
function useLabels(setup: StationSetup | undefined) {
  const { t, i18n } = useTranslation('station');
  // The food categories' names are the dashboard's own (its default namespace).
  const { t: dashboard } = useTranslation();
  return useMemo(() => {
    const causes = new Map(setup?.causes.map((c) => [c.id, c]) ?? []);
    const destinations = new Map(setup?.destinations.map((d) => [d.id, d]) ?? []);
    return {
      category: (key: string) => dashboard(`categories.${key}` as 'categories.meat', { defaultValue: key }),
      cause: (id: string | null | undefined) => {
        if (!id) return t('station.steps.noCause');
        const c = causes.get(id);
        return c ? t(`station.causes.${c.icono}` as 'station.title', { defaultValue: c.nombre }) : id;
      },
      destination: (id: string) => {
        const d = destinations.get(id);
        return d ? t(`station.destinations.${d.code}` as 'station.title', { defaultValue: d.nombre }) : id;
      },
      /** One weighing, to the gram. */
      kg: (kg: number) => formatKg(kg, i18n.resolvedLanguage ?? 'es', 'weighing'),
      /** A sum of weighings (today's, a session's), as the dashboard shows totals. */
      totalKg: (kg: number) => formatKg(kg, i18n.resolvedLanguage ?? 'es'),
    };
  }, [setup, t, dashboard, i18n.resolvedLanguage]);
}

function RecordingScreen({ station }: { station: StationState }) {
  const { t } = useTranslation('station');
  const { setup, pairing } = station;
  const labels = useLabels(setup);
  const [flow, setFlow] = useState<Flow>(START);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string>();
  const [sessionId, setSessionId] = useState<string | null>(() => localStorage.getItem('merma.station.session'));
  const session = setup?.sessions.find((s) => s.id === sessionId) ?? null;
  useEffect(() => {
    // A session completed elsewhere (or from here) no longer takes records.
    if (setup && sessionId && !session) setSessionId(null);
  }, [setup, sessionId, session]);
  useEffect(() => {
    if (sessionId) localStorage.setItem('merma.station.session', sessionId);
    else localStorage.removeItem('merma.station.session');
  }, [sessionId]);
  const step = stepOf(flow);
  // A new version of the station took over: reload between two records, when nothing is half-typed.
  const [updated, setUpdated] = useState(false);
  useEffect(() => onUpdate(() => setUpdated(true)), []);
  useEffect(() => {
    if (updated && step === 'category' && !saving && flow.correcting === undefined) location.reload();
  }, [updated, step, saving, flow.correcting]);

  const save = async () => {
    const kg = weightOf(flow.typed);
    if (kg === null || flow.category === undefined || flow.destination === undefined) return;
    const body: Omit<RecordBody, 'occurred_at'> = {
      food_category: flow.category,
      weight_kg: kg,
      destino_id: flow.destination,
      causa_id: flow.cause ?? null,
      ...(session ? { session_id: session.id } : {}),
      ...(flow.details?.waste_stage ? { waste_stage: flow.details.waste_stage } : {}),
      ...(flow.details?.product_name.trim() ? { product_name: flow.details.product_name.trim() } : {}),
      ...(flow.details?.notes.trim() ? { notes: flow.details.notes.trim() } : {}),
    };
    setSaving(true);
    try {
      if (flow.correcting !== undefined) await station.outbox.correct(flow.correcting, body);
      else await station.outbox.record(body);
      setSaved(t('station.saved', { weight: labels.kg(kg), category: labels.category(flow.category) }));
      setFlow(START);
    } finally {
      setSaving(false);
    }
  };

  const correct = (item: OutboxItem) => {
    if (item.kind !== 'record' || item.seq === undefined) return;
    setFlow({
      category: item.body.food_category,
      typed: typedOf(item.body.weight_kg),
      details: { waste_stage: item.body.waste_stage ?? null, product_name: item.body.product_name ?? '', notes: item.body.notes ?? '' },
      correcting: item.seq,
    });
    setSaved(undefined);
  };

  if (!pairing) return null;
  return (
    <Box className={classes.shell}>
      <StationHeader station={station} />
      <Container fluid p="md">
        <Grid gap="md">
          <Grid.Col span={{ base: 12, md: 8 }}>
            <Box className={classes.panel}>
              {saved && step === 'category' && (
                // Until the next record is started: nothing to close.
                <Alert color="teal" variant="light" mb="md" role="status">
                  {saved}
                </Alert>
              )}
              <FlowSummary flow={flow} labels={labels} onChange={setFlow} />
              {!setup ? (
                <Center py="xl">
                  <Loader />
                </Center>
              ) : step === 'category' ? (
                <Choices
                  title={t('station.steps.category')}
                  items={setup.categories.map((c) => ({ value: c.food_category, label: labels.category(c.food_category) }))}
                  onPick={(category) => setFlow((f) => ({ ...f, category }))}
                />
              ) : step === 'cause' ? (
                <Choices
                  title={t('station.steps.cause')}
                  items={[
                    ...setup.causes.map((c) => ({ value: c.id, label: labels.cause(c.id) })),
                    { value: '', label: t('station.steps.noCause') },
                  ]}
                  onPick={(cause) => setFlow((f) => ({ ...f, cause: cause || null }))}
                />
              ) : step === 'destination' ? (
                <Choices
                  title={t('station.steps.destination')}
                  items={setup.destinations.map((d) => ({ value: d.id, label: labels.destination(d.id) }))}
                  onPick={(destination) => setFlow((f) => ({ ...f, destination }))}
                />
              ) : (
                <Keypad
                  title={t('station.steps.weight')}
                  typed={flow.typed}
                  onChange={(typed) => setFlow((f) => ({ ...f, typed }))}
                  onSave={() => void save()}
                  saving={saving}
                  extra={
                    <>
                      <ScaleButton onWeight={(kg) => setFlow((f) => ({ ...f, typed: typedOf(kg) }))} />
                      <MoreDetails details={flow.details ?? NO_DETAILS} onChange={(details) => setFlow((f) => ({ ...f, details }))} />
                    </>
                  }
                />
              )}
            </Box>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            <Stack gap="md">
              <Refused station={station} labels={labels} onCorrect={correct} />
              <Today station={station} labels={labels} />
              <SessionControl station={station} session={session} onSession={setSessionId} labels={labels} />
              <Recent station={station} labels={labels} />
            </Stack>
          </Grid.Col>
        </Grid>
      </Container>
    </Box>
  );
}

type Labels = ReturnType<typeof useLabels>;

function StationHeader({ station }: { station: StationState }) {
  const { t } = useTranslation('station');
  const [confirming, setConfirming] = useState(false);
  const identity = station.pairing?.identity;
  const waiting = station.status.waiting;
  return (
    <>
      <Group component="header" className={classes.header} justify="space-between" wrap="wrap" gap="xs">
        <Box>
          <Text fw={800} size="xl" component="h1" m={0} lh={1.2}>
            {identity?.device.name}
          </Text>
          <Text size="md" c="dimmed">
            {identity?.establishment.name}
            {identity?.mode === 'test' ? ` · ${t('station.header.testMode')}` : ''}
          </Text>
        </Box>
        <Group gap="xs">
          <Badge
            size="xl"
            h={48}
            tt="none"
            color={station.online ? 'teal' : 'orange'}
            variant="light"
            leftSection={station.online ? <IconWifi size={20} aria-hidden /> : <IconCloudOff size={20} aria-hidden />}
          >
            {station.online ? t('station.header.online') : t('station.header.offline')}
          </Badge>
          <Badge
            size="xl"
            h={48}
            tt="none"
            color={waiting ? 'orange' : 'gray'}
            variant="light"
            leftSection={<IconCloudUpload size={20} aria-hidden />}
            role="status"
            data-testid="waiting"
          >
            {waiting ? t('station.header.waiting', { count: waiting }) : t('station.header.allSent')}
          </Badge>
          <LanguageControl />
          <Button variant="subtle" color="gray" size="md" h={48} px="xs" onClick={() => setConfirming(true)}>
            {t('station.header.unpair')}
          </Button>
        </Group>
        <Modal
          opened={confirming}
          onClose={() => setConfirming(false)}
          title={t('station.header.unpair')}
          centered
          closeButtonProps={bigClose(t('station.close'))}
        >
          <Text mb="lg">{t('station.header.unpairConfirm')}</Text>
          <Group justify="flex-end">
            <Button variant="default" size="lg" onClick={() => setConfirming(false)}>
              {t('station.cancel')}
            </Button>
            <Button color="red" size="lg" onClick={() => void station.unpair().then(() => setConfirming(false))}>
              {t('station.header.unpair')}
            </Button>
          </Group>
        </Modal>
      </Group>
      {!station.online && (
        <Alert color="orange" variant="light" radius={0} py="xs" icon={<IconCloudOff size={20} aria-hidden />}>
          {t('station.header.offlineBanner')}
        </Alert>
      )}
    </>
  );
}

function FlowSummary({ flow, labels, onChange }: { flow: Flow; labels: Labels; onChange: (f: Flow) => void }) {
  const { t } = useTranslation('station');
  const chips: { key: string; label: string; step: string; back: Flow }[] = [];
  if (flow.category !== undefined)
    chips.push({ key: 'category', label: labels.category(flow.category), step: t('station.steps.category'), back: { ...START } });
  if (flow.cause !== undefined)
    chips.push({
      key: 'cause',
      label: labels.cause(flow.cause),
      step: t('station.steps.cause'),
      back: { ...START, category: flow.category },
    });
  if (flow.destination !== undefined)
    chips.push({
      key: 'destination',
      label: labels.destination(flow.destination),
      step: t('station.steps.destination'),
      back: { ...START, category: flow.category, cause: flow.cause },
    });
  if (!chips.length) return null;
  return (
    <Group gap="xs" mb="md">
      <Button variant="default" size="md" h={48} onClick={() => onChange(START)}>
        {t('station.steps.startOver')}
      </Button>
      {chips.map((c) => (
        <Button
          key={c.key}
          variant="light"
          size="md"
          h={48}
          // The visible name first (WCAG 2.5.3, label in name), then what tapping it does.
          aria-label={`${c.label} — ${t('station.steps.change', { step: c.step })}`}
          onClick={() =>
            onChange({ ...c.back, typed: flow.typed, ...(flow.correcting !== undefined ? { correcting: flow.correcting } : {}) })
          }
        >
          {c.label}
        </Button>
      ))}
    </Group>
  );
}

function Choices({ title, items, onPick }: { title: string; items: { value: string; label: string }[]; onPick: (value: string) => void }) {
  return (
    <Stack gap="sm">
      <Title order={2} size="h3">
        {title}
      </Title>
      <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
        {items.map((item) => (
          <UnstyledButton key={item.value || 'none'} className={classes.choice} onClick={() => onPick(item.value)}>
            {item.label}
          </UnstyledButton>
        ))}
      </SimpleGrid>
    </Stack>
  );
}

/** Stage, product and notes: optional, behind one button so the four taps stay four. */
function MoreDetails({ details, onChange }: { details: Details; onChange: (details: Details) => void }) {
  const { t } = useTranslation('station');
  const { t: dashboard } = useTranslation();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState(details);
  const given = [
    details.waste_stage ? dashboard(`stages.${details.waste_stage}` as 'stages.storage') : null,
    details.product_name.trim() || null,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <>
      <Button
        variant="default"
        size="lg"
        h={56}
        onClick={() => {
          setDraft(details);
          setOpen(true);
        }}
      >
        {given ? `${t('station.details.title')}: ${given}` : t('station.details.title')}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={t('station.details.title')}
        centered
        size="lg"
        closeButtonProps={bigClose(t('station.close'))}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onChange(draft);
            setOpen(false);
          }}
        >
          <Stack>
            <Box>
              <Text fw={600} mb={4} id="station-stage">
                {t('station.details.stage')}
              </Text>
              <SegmentedControl
                aria-labelledby="station-stage"
                fullWidth
                size="md"
                orientation="vertical"
                styles={TALL_SEGMENTS}
                value={draft.waste_stage ?? ''}
                onChange={(v) => setDraft((d) => ({ ...d, waste_stage: v || null }))}
                data={[
                  { value: '', label: t('station.details.noStage') },
                  ...STAGES.map((s) => ({ value: s, label: dashboard(`stages.${s}`) })),
                ]}
              />
            </Box>
            <TextInput
              size="lg"
              label={t('station.details.product')}
              value={draft.product_name}
              maxLength={200}
              onChange={(e) => {
                const product_name = e.currentTarget.value;
                setDraft((d) => ({ ...d, product_name }));
              }}
            />
            <TextInput
              size="lg"
              label={t('station.details.notes')}
              value={draft.notes}
              maxLength={500}
              onChange={(e) => {
                const notes = e.currentTarget.value;
                setDraft((d) => ({ ...d, notes }));
              }}
            />
            <Button type="submit" size="lg" h={56}>
              {t('station.details.done')}
            </Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function ScaleButton({ onWeight }: { onWeight: (kg: number) => void }) {
  const { t } = useTranslation('station');
  const [state, setState] = useState<'idle' | 'reading' | 'failed'>('idle');
  if (!hasSerial()) return null;
  return (
    <Stack gap={4}>
      <Button
        variant="default"
        size="lg"
        h={56}
        leftSection={<IconScale size={22} aria-hidden />}
        loading={state === 'reading'}
        onClick={() => {
          setState('reading');
          readScale().then(
            (kg) => {
              if (kg !== null) onWeight(kg);
              setState(kg === null ? 'failed' : 'idle');
            },
            () => setState('failed'),
          );
        }}
      >
        {t('station.keypad.scale')}
      </Button>
      {state === 'reading' && <Text size="sm">{t('station.keypad.scaleWaiting')}</Text>}
      {state === 'failed' && (
        <Text size="sm" c="red.9">
          {t('station.keypad.scaleUnavailable')}
        </Text>
      )}
    </Stack>
  );
}

function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box component="section" className={classes.panel} aria-label={title}>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {children}
    </Box>
  );
}

function Today({ station, labels }: { station: StationState; labels: Labels }) {
  const { t } = useTranslation('station');
  // The server's figures for today, plus what waits on this tablet to be sent.
  const waiting = station.items.filter((i) => i.kind === 'record' && i.state === 'waiting');
  const kg = (station.recent?.today.kg ?? 0) + waiting.reduce((s, i) => s + (i.kind === 'record' ? i.body.weight_kg : 0), 0);
  const count = (station.recent?.today.records ?? 0) + waiting.length;
  return (
    <Panel title={t('station.today.title')}>
      <Text className={classes.total} data-testid="today-total">
        {t('station.today.total', { kg: labels.totalKg(kg), count })}
      </Text>
    </Panel>
  );
}

type Row = {
  key: string;
  record: { food_category: string; weight_kg: number; occurred_at: string };
  waiting?: number;
  undo?: () => void;
  undone?: boolean;
};

function Recent({ station, labels }: { station: StationState; labels: Labels }) {
  const { t, i18n } = useTranslation('station');
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 10_000);
    return () => clearInterval(timer);
  }, []);
  const zone = station.pairing?.identity.establishment.timezone;
  const time = new Intl.DateTimeFormat(i18n.resolvedLanguage, { hour: '2-digit', minute: '2-digit', ...(zone ? { timeZone: zone } : {}) });
  const sentById = new Map(station.sent.map((s) => [s.id, s]));
  const rows: Row[] = [
    ...station.items
      .filter((i): i is OutboxItem & { kind: 'record' } => i.kind === 'record' && i.state === 'waiting')
      .reverse()
      .map((i) => ({
        key: `q${i.seq}`,
        record: i.body,
        waiting: i.seq,
        undo: () => void station.outbox.discard(i.seq as number),
      })),
    ...(station.recent?.records ?? []).map((r) => {
      const mine = sentById.get(r.id);
      const open = mine && !mine.undone && now - Date.parse(r.created_at) < STATION_UNDO_SECONDS * 1000;
      return {
        key: r.id,
        record: r,
        ...(mine?.undone ? { undone: true } : {}),
        ...(open ? { undo: () => void station.outbox.undo(r.id) } : {}),
      };
    }),
  ].slice(0, 10);
  return (
    <Panel title={t('station.recent.title')}>
      {rows.length === 0 ? (
        <Text c="dimmed">{t('station.recent.empty')}</Text>
      ) : (
        <Stack gap="xs" component="ol" p={0} m={0} style={{ listStyle: 'none' }}>
          {rows.map((row) => {
            const weight = labels.kg(row.record.weight_kg);
            const category = labels.category(row.record.food_category);
            return (
              <Group key={row.key} component="li" justify="space-between" wrap="nowrap" gap="xs" mih={48}>
                <Box style={{ flex: 1, minWidth: 0 }}>
                  <Text fw={700} td={row.undone ? 'line-through' : undefined}>
                    {weight} · {category}
                  </Text>
                  <Text size="sm" c="dimmed">
                    {time.format(new Date(row.record.occurred_at))}
                    {row.waiting !== undefined && ` · ${t('station.recent.waiting')}`}
                    {row.undone && ` · ${t('station.recent.undone')}`}
                  </Text>
                </Box>
                {row.undo && (
                  <Button
                    variant="default"
                    size="md"
                    h={48}
                    style={{ flexShrink: 0 }}
                    onClick={row.undo}
                    aria-label={t('station.recent.undoLabel', { weight, category })}
                  >
                    {t('station.recent.undo')}
                  </Button>
                )}
              </Group>
            );
          })}
        </Stack>
      )}
    </Panel>
  );
}

/** Fields whose refusal the station explains in its own words (what the cook can do about it). */
const EXPLAINED = ['session_id', 'causa_id', 'destino_id', 'weight_kg', 'occurred_at'] as const;

function Refused({ station, labels, onCorrect }: { station: StationState; labels: Labels; onCorrect: (item: OutboxItem) => void }) {
  const { t } = useTranslation('station');
  const refused = station.status.refused;
  if (!refused.length) return null;
  // The server's words where the station has none of its own (they name the field and the reason).
  const refusal = (item: OutboxItem) => {
    const field = EXPLAINED.find((f) => item.error?.details.some((d) => d.path === f));
    return field ? t(`station.refused.because.${field}`) : item.error?.message;
  };
  return (
    <Alert color="red" variant="light" title={t('station.refused.title', { count: refused.length })} role="alert">
      <Text size="sm" mb="sm">
        {t('station.refused.intro')}
      </Text>
      <Stack gap="sm">
        {refused.map((item) => (
          <Box key={item.seq}>
            {item.kind === 'record' && (
              <Text fw={700}>
                {labels.kg(item.body.weight_kg)} · {labels.category(item.body.food_category)}
              </Text>
            )}
            <Text size="sm">{refusal(item)}</Text>
            <Group gap="xs" mt={4}>
              {item.kind === 'record' && (
                <Button size="md" h={48} onClick={() => onCorrect(item)}>
                  {t('station.refused.correct')}
                </Button>
              )}
              <Button size="md" h={48} variant="default" onClick={() => void station.outbox.discard(item.seq as number)}>
                {t('station.refused.discard')}
              </Button>
            </Group>
          </Box>
        ))}
      </Stack>
    </Alert>
  );
}

function SessionControl({
  station,
  session,
  onSession,
  labels,
}: {
  station: StationState;
  session: StationSetup['sessions'][number] | null;
  onSession: (id: string | null) => void;
  labels: Labels;
}) {
  const { t } = useTranslation('station');
  const [starting, setStarting] = useState(false);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();
  const token = station.pairing?.token;
  const open = station.setup?.sessions ?? [];
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setMessage(undefined);
    try {
      await work();
    } catch (err) {
      if (err instanceof StationError) setMessage(err.status === 0 ? t('station.session.needsNetwork') : err.message);
      else throw err;
    } finally {
      setBusy(false);
    }
  };
  const start = (sessionName: string) =>
    run(async () => {
      if (!token) return;
      const created = await stationApi.startSession(token, crypto.randomUUID(), sessionName);
      await station.reload();
      onSession(created.id);
      setStarting(false);
      setName('');
    });
  const complete = () =>
    run(async () => {
      if (!token || !session) return;
      // What is waiting is sent first, so the session's count includes it.
      await station.outbox.flush();
      const done = await stationApi.completeSession(token, crypto.randomUUID(), session.id);
      onSession(null);
      await station.reload();
      setMessage(t('station.session.completed', { name: done.name, count: done.record_count, kg: labels.totalKg(done.total_kg) }));
    });
  const presets = ['closing', 'breakfast', 'lunch', 'dinner'] as const;
  return (
    <Panel title={t('station.session.title')}>
      <Stack gap="xs">
        <SegmentedControl
          fullWidth
          orientation="vertical"
          size="md"
          styles={TALL_SEGMENTS}
          value={session?.id ?? ''}
          onChange={(v) => onSession(v || null)}
          data={[{ value: '', label: t('station.session.none') }, ...open.map((s) => ({ value: s.id, label: s.name }))]}
          aria-label={t('station.session.title')}
        />
        {session && (
          <>
            <Text size="sm">{t('station.session.recording', { name: session.name })}</Text>
            <Button size="md" h={48} variant="default" loading={busy} disabled={!station.online} onClick={() => void complete()}>
              {t('station.session.complete')}
            </Button>
          </>
        )}
        <Button size="md" h={48} variant="light" disabled={!station.online} onClick={() => setStarting(true)}>
          {t('station.session.start')}
        </Button>
        {!station.online && (
          <Text size="sm" c="dimmed">
            {t('station.session.needsNetwork')}
          </Text>
        )}
        {message && (
          <Text size="sm" role="status">
            {message}
          </Text>
        )}
      </Stack>
      <Modal
        opened={starting}
        onClose={() => setStarting(false)}
        title={t('station.session.start')}
        centered
        size="lg"
        closeButtonProps={bigClose(t('station.close'))}
      >
        <Stack>
          <SimpleGrid cols={2} spacing="sm">
            {presets.map((p) => (
              <Button
                key={p}
                variant="default"
                size="lg"
                h={64}
                loading={busy}
                onClick={() => void start(t(`station.session.presets.${p}`))}
              >
                {t(`station.session.presets.${p}`)}
              </Button>
            ))}
          </SimpleGrid>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (name.trim()) void start(name.trim());
            }}
          >
            <TextInput
              size="lg"
              label={t('station.session.name')}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              maxLength={100}
            />
            <Button type="submit" size="lg" h={56} mt="sm" fullWidth loading={busy} disabled={!name.trim()}>
              {t('station.session.create')}
            </Button>
          </form>
          {message && (
            <Text size="sm" c="red.9">
              {message}
            </Text>
          )}
        </Stack>
      </Modal>
    </Panel>
  );
}
