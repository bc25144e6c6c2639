import { Alert, Box, Container, Grid, Stack } from '@mantine/core';
import type { StationSetup } from '@merma/schema/dashboard';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDecimal } from '../../lib/decimal.ts';
import { countedKg, counting, type Flow, NO_DETAILS, netWeight, START, stepOf } from '../flow.ts';
import { typedOf, weightOf } from '../Keypad.tsx';
import { CurrentStep } from '../parts/CurrentStep.tsx';
import { FlowSummary } from '../parts/FlowSummary.tsx';
import { Recent } from '../parts/Recent.tsx';
import { Refused } from '../parts/Refused.tsx';
import { SessionControl } from '../parts/SessionControl.tsx';
import { StationHeader } from '../parts/StationHeader.tsx';
import { Today } from '../parts/Today.tsx';
import { onUpdate } from '../pwa.ts';
import classes from '../station.module.css';
import type { OutboxItem, RecordBody } from '../store.ts';
import { useLabels } from '../useLabels.ts';
import type { StationState } from '../useStation.ts';

/**
 * A paired station: the record being made (its choices so far, then the current step) and, beside it,
 * what needs the cook (refused records), today's total, the session and the latest records to undo.
 */
export function RecordingScreen({ station, onDonate }: { station: StationState; onDonate?: () => void }) {
  const { t, i18n } = useTranslation('station');
  const { setup, pairing } = station;
  const [problem, setProblem] = useState<string>();
  const labels = useLabels(setup);
  const [flow, setFlow] = useState<Flow>(START);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string>();
  const [session, setSessionId] = useChosenSession(setup);
  const step = stepOf(flow);
  // A new version of the station took over: reload between two records, when nothing is half-typed.
  useReloadOnUpdateWhen(step === 'category' && !saving && flow.correcting === undefined);

  const save = async () => {
    if (flow.category === undefined || flow.destination === undefined) return;
    // Counted: units × the product's unit weight, the method known; no container to take off.
    const units = counting(flow) ? Number(flow.typed.whole || '0') : null;
    const gross = counting(flow) ? countedKg(units ?? 0, flow.product.unit_weight_kg) : weightOf(flow.typed);
    if (gross === null) return;
    const weight = counting(flow) ? { kg: gross } : netWeight(gross, flow.details?.tare ?? '', i18n.language);
    if ('problem' in weight) {
      setProblem(t(`station.details.${weight.problem}`));
      return;
    }
    setProblem(undefined);
    const kg = weight.kg;
    const body: Omit<RecordBody, 'occurred_at'> = {
      food_category: flow.category,
      weight_kg: kg,
      ...(weight.tare_kg ? { tare_kg: weight.tare_kg } : {}),
      // Read from the scale: a direct weighing. Counted: counting. Typed: the method is not known, so not said.
      ...(flow.scale ? { measurement_method: 'direct_weighing' as const, ...(flow.scale.id ? { scale_id: flow.scale.id } : {}) } : {}),
      ...(units !== null ? { measurement_method: 'counting' as const } : {}),
      ...(flow.product ? { product_id: flow.product.id, product_name: flow.product.name } : {}),
      ...(flow.details?.edible ? { edible: flow.details.edible } : {}),
      ...(flow.reason ? { hierarchy_reason: flow.reason } : {}),
      destino_id: flow.destination,
      causa_id: flow.cause ?? null,
      ...(session ? { session_id: session.id } : {}),
      ...(flow.details?.waste_stage ? { waste_stage: flow.details.waste_stage } : {}),
      ...(!flow.product && flow.details?.product_name.trim() ? { product_name: flow.details.product_name.trim() } : {}),
      ...(flow.details?.notes.trim() ? { notes: flow.details.notes.trim() } : {}),
      // A photo already uploaded (a refused record's, corrected) is its address; one still on the
      // tablet goes into the outbox beside the record, which uploads it first.
      ...(flow.photo && 'url' in flow.photo ? { photo_url: flow.photo.url } : {}),
    };
    const photo = flow.photo && 'blob' in flow.photo ? flow.photo.blob : undefined;
    setSaving(true);
    try {
      if (flow.correcting !== undefined) await station.outbox.correct(flow.correcting, body, photo);
      else await station.outbox.record(body, new Date(), photo);
      setSaved(t('station.saved', { weight: labels.kg(kg), category: labels.category(flow.category) }));
      setFlow(START);
    } finally {
      setSaving(false);
    }
  };

  const correct = (item: OutboxItem) => {
    if (item.kind !== 'record' || item.seq === undefined) return;
    const { body } = item;
    setFlow({
      category: body.food_category,
      // The keypad shows the gross again, the tare in the details.
      typed: typedOf(body.tare_kg ? Math.round((body.weight_kg + body.tare_kg) * 1000) / 1000 : body.weight_kg),
      details: {
        ...NO_DETAILS,
        waste_stage: body.waste_stage ?? null,
        product_name: body.product_name ?? '',
        notes: body.notes ?? '',
        tare: body.tare_kg ? formatDecimal(body.tare_kg, i18n.language, 3) : '',
        edible: body.edible ?? null,
      },
      ...(body.measurement_method === 'direct_weighing' ? { scale: { id: body.scale_id ?? null } } : {}),
      // Its photo stays with it (the cook may remove it, or take another).
      ...(item.photo ? { photo: { blob: item.photo } } : body.photo_url ? { photo: { url: body.photo_url } } : {}),
      correcting: item.seq,
    });
    setSaved(undefined);
  };

  if (!pairing) return null;
  return (
    <Box className={classes.shell}>
      <StationHeader station={station} {...(onDonate ? { onDonate } : {})} />
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
              {problem && step === 'weight' && (
                <Alert color="red" variant="light" mb="md" role="alert">
                  {problem}
                </Alert>
              )}
              <FlowSummary flow={flow} labels={labels} onChange={setFlow} />
              <CurrentStep setup={setup} flow={flow} onFlow={setFlow} labels={labels} saving={saving} onSave={() => void save()} />
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

/** The registration session the records go to: this tablet's choice, kept across reloads. */
function useChosenSession(setup: StationSetup | undefined) {
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
  return [session, setSessionId] as const;
}

/** Reloads the page once a new version of the station has taken over and `idle` holds. */
function useReloadOnUpdateWhen(idle: boolean) {
  const [updated, setUpdated] = useState(false);
  useEffect(() => onUpdate(() => setUpdated(true)), []);
  useEffect(() => {
    if (updated && idle) location.reload();
  }, [updated, idle]);
}
