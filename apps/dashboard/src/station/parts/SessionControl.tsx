import { Button, Modal, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { StationSetup } from '@merma/schema/dashboard';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { StationError, stationApi } from '../client.ts';
import type { Labels } from '../useLabels.ts';
import type { StationState } from '../useStation.ts';
import { Panel } from './Panel.tsx';
import { bigClose, TALL_SEGMENTS } from './targets.ts';

export function SessionControl({
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
