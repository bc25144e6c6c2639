import { Alert, Box, Button, Center, Container, Group, Loader, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import type { FoodCategory } from '@merma/schema';
import { IconCircleCheck, IconCloudOff, IconTrash } from '@tabler/icons-react';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { StationError, stationApi } from '../client.ts';
import {
  type DraftLine,
  lineProblem,
  newLine,
  offerBody,
  onlyAgreement,
  SIGNED_POLL_MS,
  type SigningLink,
  type StationAgreement,
  type StationDonation,
  settledDonation,
} from '../donation.ts';
import { Choices } from '../parts/Choices.tsx';
import { StationHeader } from '../parts/StationHeader.tsx';
import { TALL_SEGMENTS } from '../parts/targets.ts';
import classes from '../station.module.css';
import { useLabels } from '../useLabels.ts';
import type { StationState } from '../useStation.ts';

// The dashboard's QR code (uqr), loaded when a code is first shown, not with the station (precached all the same).
const QrCode = lazy(() => import('../../components/QrCode.tsx').then((m) => ({ default: m.QrCode })));

/**
 * Today's surplus offered as a donation (station/donation.ts): the agreement (no choice when there
 * is one), the lines (a category, then what it is, how much, and its dates), the offer, and then the
 * signing link's QR code, full screen, for the entity's volunteer to open on their phone; the
 * screen asks every few seconds whether they have signed. Online only: see donation.ts.
 */
export function DonationScreen({ station, onDone }: { station: StationState; onDone: () => void }) {
  const { t } = useTranslation('station');
  const token = station.pairing?.token;
  const labels = useLabels(station.setup);
  const [agreements, setAgreements] = useState<StationAgreement[]>();
  const [chosen, setChosen] = useState<string | null>(null);
  const [lines, setLines] = useState<DraftLine[]>([]);
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [offered, setOffered] = useState<{ id: string; link: SigningLink }>();
  // One key per offer and per link, kept across retries of the same tap (donation.ts).
  const keys = useRef({ offer: crypto.randomUUID(), link: crypto.randomUUID() });

  useEffect(() => {
    if (!token || !station.online) return;
    let gone = false;
    stationApi.agreements(token).then(
      (list) => !gone && setAgreements(list),
      (e: unknown) => !gone && setError(e instanceof StationError ? e.message : String(e)),
    );
    return () => {
      gone = true;
    };
  }, [token, station.online]);

  const agreement = agreements ? (onlyAgreement(agreements) ?? agreements.find((a) => a.id === chosen) ?? null) : null;
  const body = agreement ? offerBody(agreement, lines) : null;

  const offer = async () => {
    if (!token || !body) return;
    setBusy(true);
    setError(undefined);
    try {
      const donation = await stationApi.offerDonation(token, keys.current.offer, body);
      const link = await stationApi.donationLink(token, keys.current.link, donation.id);
      setOffered({ id: donation.id, link });
    } catch (e) {
      setError(e instanceof StationError && e.status === 0 ? t('station.donate.needsNetwork') : e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const content = () => {
    if (offered && token) return <SigningQr token={token} donationId={offered.id} link={offered.link} onDone={onDone} />;
    if (!station.online) {
      return (
        <Alert color="orange" icon={<IconCloudOff size={24} aria-hidden />} title={t('station.donate.title')}>
          {t('station.donate.needsNetwork')}
        </Alert>
      );
    }
    if (!agreements) {
      return error ? (
        <Alert color="red">{error}</Alert>
      ) : (
        <Center py="xl">
          <Loader aria-label={t('station.donate.loading')} />
        </Center>
      );
    }
    if (agreements.length === 0) return <Alert color="orange">{t('station.donate.noAgreement')}</Alert>;
    if (!agreement) {
      return (
        <Choices
          title={t('station.donate.agreement')}
          items={agreements.map((a) => ({ value: a.id, label: a.entity_name }))}
          onPick={setChosen}
        />
      );
    }
    if (adding || lines.length === 0) {
      const accepted = new Set(agreement.accepted_food_categories);
      const categories = (station.setup?.categories.map((c) => c.food_category) ?? agreement.accepted_food_categories).filter((c) =>
        accepted.has(c),
      );
      return (
        <Stack gap="md">
          <Text size="lg">{t('station.donate.to', { entity: agreement.entity_name })}</Text>
          <Choices
            title={t('station.donate.category')}
            items={categories.map((c) => ({ value: c, label: labels.category(c) }))}
            onPick={(c) => {
              setLines((ls) => [...ls, newLine(c as FoodCategory, labels.category(c))]);
              setAdding(false);
            }}
          />
          {lines.length > 0 && (
            <Button variant="default" size="lg" onClick={() => setAdding(false)}>
              {t('station.cancel')}
            </Button>
          )}
        </Stack>
      );
    }
    return (
      <Stack gap="md">
        <Title order={2} size="h3">
          {t('station.donate.to', { entity: agreement.entity_name })}
        </Title>
        {lines.map((line, i) => (
          <LineEditor
            // Lines are only added at the end and removed by position: the index is their identity here.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            key={i}
            n={i + 1}
            line={line}
            category={labels.category(line.food_category)}
            problem={lineProblem(line, agreement)}
            onChange={(next) => setLines((ls) => ls.map((l, j) => (j === i ? next : l)))}
            onRemove={() => setLines((ls) => ls.filter((_, j) => j !== i))}
          />
        ))}
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Group grow>
          <Button variant="default" size="xl" onClick={() => setAdding(true)}>
            {t('station.donate.addLine')}
          </Button>
          <Button size="xl" color="teal.9" disabled={!body} loading={busy} onClick={() => void offer()}>
            {t('station.donate.offer')}
          </Button>
        </Group>
      </Stack>
    );
  };

  return (
    <Box className={classes.shell}>
      <StationHeader station={station} />
      <Container size="md" p="md">
        <Group justify="space-between" mb="md">
          <Title order={2}>{t('station.donate.title')}</Title>
          {!offered && (
            <Button variant="default" size="lg" onClick={onDone}>
              {t('station.donate.back')}
            </Button>
          )}
        </Group>
        <Box className={classes.panel}>{content()}</Box>
      </Container>
    </Box>
  );
}

function LineEditor({
  n,
  line,
  category,
  problem,
  onChange,
  onRemove,
}: {
  n: number;
  line: DraftLine;
  category: string;
  problem: ReturnType<typeof lineProblem>;
  onChange: (line: DraftLine) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation('station');
  const set = (patch: Partial<DraftLine>) => onChange({ ...line, ...patch });
  return (
    <Box component="fieldset" className={classes.panel} m={0} aria-label={t('station.donate.line', { n, category })}>
      <Group justify="space-between" mb="xs">
        <Text fw={700} size="lg">
          {n}. {category}
        </Text>
        <Button variant="subtle" color="red" size="lg" leftSection={<IconTrash size={20} aria-hidden />} onClick={onRemove}>
          {t('station.donate.remove')}
        </Button>
      </Group>
      <Stack gap="sm">
        <TextInput
          size="xl"
          label={t('station.donate.description')}
          value={line.description}
          maxLength={200}
          onChange={(e) => set({ description: e.currentTarget.value })}
          error={problem === 'description' ? t('station.donate.problems.description') : undefined}
        />
        <Group grow align="flex-start">
          <TextInput
            size="xl"
            inputMode="decimal"
            label={t('station.donate.quantity')}
            value={line.quantity}
            onChange={(e) => set({ quantity: e.currentTarget.value })}
            error={problem === 'quantity' && line.quantity ? t('station.donate.problems.quantity') : undefined}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id={`unit-${n}`}>
              {t('station.donate.unit')}
            </Text>
            <SegmentedControl
              aria-labelledby={`unit-${n}`}
              size="lg"
              styles={TALL_SEGMENTS}
              value={line.unit}
              onChange={(unit) => set({ unit: unit as DraftLine['unit'] })}
              data={[
                { value: 'kg', label: t('station.donate.kg') },
                { value: 'unit', label: t('station.donate.units') },
              ]}
            />
          </Stack>
        </Group>
        <Group grow>
          <TextInput
            size="xl"
            type="date"
            label={t('station.donate.bestBefore')}
            value={line.best_before}
            onChange={(e) => set({ best_before: e.currentTarget.value })}
          />
          <TextInput
            size="xl"
            type="date"
            label={t('station.donate.useBy')}
            value={line.use_by}
            onChange={(e) => set({ use_by: e.currentTarget.value })}
          />
        </Group>
        {problem === 'category' && <Alert color="orange">{t('station.donate.problems.category')}</Alert>}
      </Stack>
    </Box>
  );
}

/** The link's QR code, full screen, until the volunteer has signed (asked every SIGNED_POLL_MS). */
function SigningQr({ token, donationId, link, onDone }: { token: string; donationId: string; link: SigningLink; onDone: () => void }) {
  const { t, i18n } = useTranslation('station');
  // As large as a landscape tablet leaves room for, with the expiry and the wait below it.
  const [qrSize] = useState(() => Math.round(Math.min(window.innerHeight * 0.48, window.innerWidth * 0.8)));
  const [donation, setDonation] = useState<StationDonation>();
  const settled = settledDonation(donation);

  useEffect(() => {
    if (settled) return;
    let gone = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const d = await stationApi.donation(token, donationId);
        if (!gone) setDonation(d);
        if (settledDonation(d)) return;
      } catch {
        // Offline or a 5xx: ask again at the next tick.
      }
      if (!gone) timer = setTimeout(() => void poll(), SIGNED_POLL_MS);
    };
    void poll();
    return () => {
      gone = true;
      clearTimeout(timer);
    };
  }, [token, donationId, settled]);

  const expires = useMemo(
    () =>
      new Intl.DateTimeFormat(i18n.resolvedLanguage ?? 'es', { dateStyle: 'short', timeStyle: 'short' }).format(new Date(link.expires_at)),
    [link.expires_at, i18n.resolvedLanguage],
  );

  if (settled && donation) {
    return (
      <Stack align="center" gap="lg" py="xl" role="status">
        <IconCircleCheck size={96} color="var(--mantine-color-teal-9)" aria-hidden />
        <Title order={2} ta="center">
          {donation.signed ? t('station.donate.signedBy', { name: donation.signed.name }) : t(`station.donate.status.${donation.status}`)}
        </Title>
        <Text size="lg">{donation.entity_name}</Text>
        <Button size="xl" color="teal.9" onClick={onDone}>
          {t('station.donate.done')}
        </Button>
      </Stack>
    );
  }
  return (
    <Stack align="center" gap="md">
      <Title order={2} size="h3" ta="center">
        {t('station.donate.scan')}
      </Title>
      <Suspense fallback={<Loader />}>
        <QrCode text={link.url} label={t('station.donate.qr')} size={qrSize} />
      </Suspense>
      <Text size="lg">{t('station.donate.expires', { at: expires })}</Text>
      <Group gap="xs" role="status" aria-live="polite">
        <Loader size="sm" aria-hidden />
        <Text size="lg">{t('station.donate.waiting')}</Text>
      </Group>
      <Button variant="default" size="lg" onClick={onDone}>
        {t('station.donate.close')}
      </Button>
    </Stack>
  );
}
