import { Modal, Select, SimpleGrid, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import {
  EDIBLE_PARTS,
  HIERARCHY_REASONS,
  MAX_HIERARCHY_NOTE_LENGTH,
  MAX_NOTES_LENGTH,
  MAX_PRODUCT_NAME_LENGTH,
  MAX_TRANSFER_DOCUMENT_REF_LENGTH,
  MEASUREMENT_METHODS,
  WASTE_STAGES,
  type WasteRecord,
} from '@merma/schema';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { DecimalInput, decimalError, decimalValue } from '../../components/DecimalInput.tsx';
import { ModalForm } from '../../components/SecretFormModal.tsx';
import { formatDecimal, parseDecimal } from '../../lib/decimal.ts';
import { detailText, errorInfo } from '../../lib/errors.ts';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { CATEGORIES, zonedDateTime, zonedInput } from '../../lib/waste.ts';
import { queryClient, trpc } from '../../trpc.ts';

type Values = {
  food_category: string;
  weight: string;
  destino_id: string;
  causa_id: string;
  waste_stage: string;
  product_name: string;
  occurred_at: string;
  notes: string;
  measurement_method: string;
  edible: string;
  hierarchy_reason: string;
  hierarchy_note: string;
  transfer_document_ref: string;
};

/** The fields the form sends, by the API's names (a server detail's `path` names one of them). */
const FIELD_OF_PATH: Record<string, keyof Values> = {
  food_category: 'food_category',
  weight_kg: 'weight',
  destino_id: 'destino_id',
  causa_id: 'causa_id',
  waste_stage: 'waste_stage',
  product_name: 'product_name',
  occurred_at: 'occurred_at',
  notes: 'notes',
  measurement_method: 'measurement_method',
  estimated: 'measurement_method',
  edible: 'edible',
  hierarchy_reason: 'hierarchy_reason',
  hierarchy_note: 'hierarchy_note',
  transfer_document_ref: 'transfer_document_ref',
};

type Props = {
  scope: { establishment_id: string; livemode: boolean };
  timezone: string;
  /** The record to correct; a new record when absent. */
  correcting?: WasteRecord;
  onClose: () => void;
  /** After it is stored: the new record (or the correction). */
  onSaved?: (record: WasteRecord) => void;
};

/**
 * Adds a record, or corrects one, by hand: the fields of `POST /api/v1/records`, sent to the same
 * service. Weight in kg with a decimal comma or point; how it was measured and whether it was
 * edible, chosen (left empty: not said — a person typing a record is not assumed to have weighed
 * it); when it happened as the establishment's wall
 * clock (converted to its offset, whatever the browser's zone). The server checks everything the
 * API checks; its details appear under the fields they name. A correction sends only what changed
 * and is stored as a new record that supersedes the original (the chain keeps both). Render it
 * only while open.
 */
export function RecordFormModal({ scope, timezone, correcting, onClose, onSaved }: Props) {
  const { t } = useTranslation();
  const format = useFormat(timezone);
  const { data: catalog } = useSuspenseQuery(trpc.catalog.get.queryOptions());
  // Each category's best step this year, to ask why when a lower one is chosen (none yet: nothing asked).
  const { data: hierarchy } = useQuery(trpc.compliance.hierarchy.queryOptions(scope));
  const best = hierarchy?.best_by_category ?? [];
  const initial: Values = correcting
    ? {
        food_category: correcting.food_category,
        weight: formatDecimal(correcting.weight_kg, format.language, 3),
        destino_id: correcting.destino_id,
        causa_id: correcting.causa_id ?? '',
        waste_stage: correcting.waste_stage ?? '',
        product_name: correcting.product_name ?? '',
        occurred_at: zonedInput(correcting.occurred_at, timezone),
        notes: correcting.notes ?? '',
        measurement_method: correcting.measurement_method ?? '',
        edible: correcting.edible ?? '',
        hierarchy_reason: correcting.hierarchy_reason ?? '',
        hierarchy_note: correcting.hierarchy_note ?? '',
        transfer_document_ref: correcting.transfer_document_ref ?? '',
      }
    : {
        food_category: '',
        weight: '',
        destino_id: '',
        causa_id: '',
        waste_stage: '',
        product_name: '',
        occurred_at: zonedInput(new Date(), timezone),
        notes: '',
        measurement_method: '',
        edible: '',
        hierarchy_reason: '',
        hierarchy_note: '',
        transfer_document_ref: '',
      };
  const form = useForm<Values>({
    initialValues: initial,
    validate: {
      food_category: (v) => (v ? null : t('records.form.required')),
      weight: (v) => {
        const read = parseDecimal(v, format.language);
        if (read.problem === 'ambiguous') return decimalError(t, v, format.language);
        if (read.problem) return t('records.form.weightInvalid');
        return read.value <= 0 ? t('records.form.weightPositive') : null;
      },
      destino_id: (v) => (v ? null : t('records.form.required')),
      occurred_at: (v) => (v === '' || zonedDateTime(v, timezone) ? null : t('records.form.dateInvalid')),
      hierarchy_note: (v, values) => (values.hierarchy_reason === 'other' && !v.trim() ? t('records.form.reasonNoteNeeded') : null),
    },
  });

  // The server's details go under the fields they name; the rest stay in the alert above the form.
  const showDetails = (error: unknown) => {
    const errors: Partial<Record<keyof Values, string>> = {};
    for (const d of errorInfo(error).details) {
      const field = FIELD_OF_PATH[d.path];
      const text = d.code ? detailText({ t }, d) : d.message;
      if (field) errors[field] = errors[field] ? `${errors[field]}; ${text}` : text;
    }
    form.setErrors(errors);
  };
  const saved = async (record: WasteRecord) => {
    notifications.show({ color: 'teal', message: t(correcting ? 'records.form.corrected' : 'records.form.created') });
    // The records (list, details) and the figures built from them.
    await Promise.all([
      queryClient.invalidateQueries(trpc.records.pathFilter()),
      queryClient.invalidateQueries(trpc.analytics.pathFilter()),
      queryClient.invalidateQueries(trpc.predict.pathFilter()),
    ]);
    onSaved?.(record);
    onClose();
  };
  const create = useMutation({
    ...trpc.records.create.mutationOptions({ onSuccess: saved, onError: showDetails }),
    meta: { inlineError: true },
  });
  const correct = useMutation({
    ...trpc.records.correct.mutationOptions({ onSuccess: saved, onError: showDetails }),
    meta: { inlineError: true },
  });
  const mutation = correcting ? correct : create;

  const submit = (v: Values) => {
    const fields = {
      food_category: v.food_category as WasteRecord['food_category'],
      weight_kg: decimalValue(v.weight, format.language) as number,
      destino_id: v.destino_id,
      causa_id: v.causa_id || null,
      waste_stage: (v.waste_stage || null) as WasteRecord['waste_stage'],
      product_name: v.product_name.trim() || null,
      notes: v.notes.trim() || null,
      occurred_at: v.occurred_at ? zonedDateTime(v.occurred_at, timezone) : null,
      measurement_method: (v.measurement_method || null) as WasteRecord['measurement_method'],
      edible: (v.edible || null) as WasteRecord['edible'],
      hierarchy_reason: (v.hierarchy_reason || null) as WasteRecord['hierarchy_reason'],
      hierarchy_note: v.hierarchy_note.trim() || null,
      transfer_document_ref: v.transfer_document_ref.trim() || null,
    };
    if (!correcting) return create.mutate({ ...scope, ...fields });
    // Only what changed: the original's other fields (its shift, session, photo) are kept.
    const before = {
      food_category: correcting.food_category,
      weight_kg: correcting.weight_kg,
      destino_id: correcting.destino_id,
      causa_id: correcting.causa_id,
      waste_stage: correcting.waste_stage,
      product_name: correcting.product_name,
      notes: correcting.notes,
      occurred_at: zonedInput(correcting.occurred_at, timezone) === v.occurred_at ? fields.occurred_at : null,
      measurement_method: correcting.measurement_method,
      edible: correcting.edible,
      hierarchy_reason: correcting.hierarchy_reason,
      hierarchy_note: correcting.hierarchy_note,
      transfer_document_ref: correcting.transfer_document_ref,
    };
    const changes = Object.fromEntries(
      Object.entries(fields).filter(([key, value]) => value !== before[key as keyof typeof before]),
    ) as Partial<typeof fields>;
    if (Object.keys(changes).length === 0) {
      form.setErrors({ weight: t('records.form.nothingChanged') });
      return;
    }
    correct.mutate({ ...scope, record_id: correcting.id, ...changes });
  };

  const causes = catalog.causes.filter((c) => c.activo || c.id === correcting?.causa_id);
  const below = belowBest(form.values, catalog.destinations, best);
  const isWaste =
    catalog.destinations.find((d) => d.id === form.values.destino_id)?.wfd_operation !== 'not_waste' && Boolean(form.values.destino_id);
  return (
    <Modal opened onClose={onClose} title={t(correcting ? 'records.form.correctTitle' : 'records.form.addTitle')} size="lg">
      <ModalForm
        onSubmit={form.onSubmit(submit)}
        mutation={mutation}
        submitLabel={t(correcting ? 'records.form.correctSubmit' : 'records.form.addSubmit')}
        onCancel={onClose}
      >
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <Select
            label={t('records.columns.category')}
            required
            data={CATEGORIES.map((c) => ({ value: c, label: t(`categories.${c}`) }))}
            {...form.getInputProps('food_category')}
          />
          <DecimalInput
            label={t('records.form.weight')}
            description={t('records.form.weightHint')}
            required
            {...form.getInputProps('weight')}
          />
          <Select
            label={t('records.columns.destination')}
            required
            data={catalog.destinations.map((d) => ({ value: d.id, label: d.nombre }))}
            {...form.getInputProps('destino_id')}
          />
          <Select
            label={t('records.columns.cause')}
            clearable
            data={causes.map((c) => ({ value: c.id, label: c.nombre }))}
            {...form.getInputProps('causa_id')}
          />
          <Select
            label={t('records.columns.stage')}
            clearable
            data={WASTE_STAGES.map((s) => ({ value: s, label: t(`stages.${s}`) }))}
            {...form.getInputProps('waste_stage')}
          />
          <TextInput label={t('records.columns.product')} maxLength={MAX_PRODUCT_NAME_LENGTH} {...form.getInputProps('product_name')} />
          <Select
            label={t('records.form.method')}
            description={t('records.form.methodHint')}
            clearable
            data={MEASUREMENT_METHODS.map((m) => ({ value: m, label: t(`methods.${m}`) }))}
            {...form.getInputProps('measurement_method')}
          />
          <Select
            label={t('records.form.edible')}
            clearable
            data={EDIBLE_PARTS.map((e) => ({ value: e, label: t(`edibleParts.${e}`) }))}
            {...form.getInputProps('edible')}
          />
          <TextInput
            type="datetime-local"
            label={t('records.form.occurredAt')}
            description={t('records.form.occurredAtHint', { zone: timezone })}
            {...form.getInputProps('occurred_at')}
          />
        </SimpleGrid>
        {(below || form.values.hierarchy_reason) && (
          // Ley 1/2025 art. 5.2: a lower step than the kitchen uses for this food is justified in writing.
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <Select
              label={t('records.form.reason')}
              description={below ? t('records.form.reasonHint', { best: below }) : undefined}
              clearable
              data={HIERARCHY_REASONS.map((r) => ({ value: r, label: t(`hierarchyReasons.${r}`) }))}
              {...form.getInputProps('hierarchy_reason')}
            />
            <TextInput
              label={t('records.form.reasonNote')}
              maxLength={MAX_HIERARCHY_NOTE_LENGTH}
              {...form.getInputProps('hierarchy_note')}
            />
          </SimpleGrid>
        )}
        {(isWaste || form.values.transfer_document_ref) && (
          // Waste handed over to its manager leaves with a transfer document: its number, when known.
          <TextInput
            label={t('records.form.transferDocument')}
            description={t('records.form.transferDocumentHint')}
            maxLength={MAX_TRANSFER_DOCUMENT_REF_LENGTH}
            w={{ base: '100%', sm: 320 }}
            {...form.getInputProps('transfer_document_ref')}
          />
        )}
        <Textarea label={t('records.detail.notes')} autosize minRows={2} maxLength={MAX_NOTES_LENGTH} {...form.getInputProps('notes')} />
      </ModalForm>
    </Modal>
  );
}

/**
 * The name of the higher step the establishment used this year for the chosen category, when the
 * chosen destination is lower than it (the form then asks why); null otherwise.
 */
function belowBest(
  values: Pick<Values, 'food_category' | 'destino_id'>,
  destinations: readonly { id: string; nombre: string; orden: number }[],
  best: readonly { food_category: string; destino_id: string }[],
): string | null {
  const chosen = destinations.find((d) => d.id === values.destino_id);
  const top = best.find((b) => b.food_category === values.food_category);
  const higher = top && destinations.find((d) => d.id === top.destino_id);
  return chosen && higher && chosen.orden > higher.orden ? higher.nombre : null;
}
