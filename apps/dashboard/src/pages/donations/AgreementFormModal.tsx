import { Button, Checkbox, Fieldset, Group, Modal, Select, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import {
  AGREEMENT_RENEWALS,
  AGREEMENT_TIMEZONE,
  AGREEMENT_TRANSPORTS,
  FOOD_CATEGORIES,
  type FoodCategory,
  IsoDate,
  type SocialEntity,
  WEEKDAYS,
} from '@merma/schema';
import type { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { notifications } from '../../lib/notify.ts';
import { useScope } from '../../lib/scope.ts';
import { rule } from '../../lib/validation.ts';
import { todayIn } from '../../lib/waste.ts';
import { queryClient, trpc } from '../../trpc.ts';

type Agreement = DashboardDonationAgreement;
type Weekday = (typeof WEEKDAYS)[number];
const CONDITIONS = ['chilled', 'frozen', 'cooked', 'near_best_before'] as const;

type Values = {
  entity_id: string;
  establishment_ids: string[];
  valid_from: string;
  valid_until: string;
  renewal: Agreement['renewal'];
  accepted_food_categories: string[];
  conditions: Agreement['conditions'];
  schedule: string;
  weekdays: string[];
  transport: string;
  storage_conditions: string;
  safety_responsibility_clause: string;
  refusal_procedure: string;
};

type Props = {
  agreement: Agreement | null;
  /** The entities a new agreement may name: the ones not archived. */
  entities: SocialEntity[];
  /** The entity a new agreement starts with (the list's filter). */
  defaultEntity?: string | undefined;
  onClose: () => void;
};

/**
 * A new donation agreement (`agreement` null) or one's terms (its entity stays): the establishments
 * it covers, its validity and renewal, the food the entity accepts, how and when it collects, the
 * storage, each party's food-safety responsibility and how the entity refuses food (Ley 1/2025
 * art. 7). Dates are days in Spain's calendar. The server checks again and says what it refuses.
 */
export function AgreementFormModal({ agreement, entities, defaultEntity, onClose }: Props) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const { me, establishment } = useScope();
  const required = (message: string) => (v: string) => (v.trim() ? null : message);
  const form = useForm<Values>({
    initialValues: {
      entity_id: agreement?.entity_id ?? (entities.some((e) => e.id === defaultEntity) ? (defaultEntity as string) : ''),
      establishment_ids: agreement?.establishment_ids ?? (establishment ? [establishment.id] : []),
      valid_from: agreement?.valid_from ?? todayIn(AGREEMENT_TIMEZONE),
      valid_until: agreement?.valid_until ?? '',
      renewal: agreement?.renewal ?? 'none',
      accepted_food_categories: agreement?.accepted_food_categories ?? [],
      conditions: agreement?.conditions ?? { chilled: false, frozen: false, cooked: false, near_best_before: false },
      schedule: agreement?.collection.schedule ?? '',
      weekdays: agreement?.collection.weekdays ?? [],
      transport: agreement?.collection.transport ?? 'entity',
      storage_conditions: agreement?.storage_conditions ?? '',
      safety_responsibility_clause: agreement?.safety_responsibility_clause ?? '',
      refusal_procedure: agreement?.refusal_procedure ?? '',
    },
    validate: {
      entity_id: (v) => (agreement || v ? null : t('donations.agreementForm.entityRequired')),
      establishment_ids: (v) => (v.length > 0 ? null : t('donations.agreementForm.establishmentsRequired')),
      valid_from: rule(IsoDate, t('donations.agreementForm.dateRequired')),
      valid_until: (v, values) =>
        !IsoDate.safeParse(v).success
          ? t('donations.agreementForm.dateRequired')
          : v < values.valid_from
            ? t('donations.agreementForm.untilBeforeFrom')
            : null,
      accepted_food_categories: (v) => (v.length > 0 ? null : t('donations.agreementForm.categoriesRequired')),
      schedule: required(t('donations.agreementForm.scheduleRequired')),
      storage_conditions: required(t('donations.agreementForm.textRequired')),
      safety_responsibility_clause: required(t('donations.agreementForm.textRequired')),
      refusal_procedure: required(t('donations.agreementForm.textRequired')),
    },
  });
  const done = async (saved: Agreement) => {
    notifications.show({
      color: 'teal',
      message: t(agreement ? 'donations.agreementForm.saved' : 'donations.agreementForm.created', { entity: saved.entity_name }),
    });
    await queryClient.invalidateQueries(trpc.donations.agreements.pathFilter());
    onClose();
  };
  const create = useMutation(trpc.donations.createAgreement.mutationOptions({ meta: { inlineError: true }, onSuccess: done }));
  const update = useMutation(trpc.donations.updateAgreement.mutationOptions({ meta: { inlineError: true }, onSuccess: done }));
  const error = create.error ?? update.error;

  const submit = (v: Values) => {
    const terms = {
      establishment_ids: v.establishment_ids,
      valid_from: v.valid_from,
      valid_until: v.valid_until,
      renewal: v.renewal,
      accepted_food_categories: FOOD_CATEGORIES.filter((c) => v.accepted_food_categories.includes(c)) as FoodCategory[],
      conditions: v.conditions,
      collection: {
        schedule: v.schedule.trim(),
        weekdays: WEEKDAYS.filter((d) => v.weekdays.includes(d)) as Weekday[],
        transport: v.transport as Agreement['collection']['transport'],
      },
      storage_conditions: v.storage_conditions.trim(),
      safety_responsibility_clause: v.safety_responsibility_clause.trim(),
      refusal_procedure: v.refusal_procedure.trim(),
    };
    if (agreement) update.mutate({ id: agreement.id, ...terms });
    else create.mutate({ entity_id: v.entity_id, ...terms });
  };

  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      title={agreement ? t('donations.agreementForm.editTitle', { entity: agreement.entity_name }) : t('donations.agreementForm.newTitle')}
    >
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack gap="sm">
          <Select
            label={t('donations.agreementForm.entity')}
            required={!agreement}
            disabled={Boolean(agreement)}
            description={agreement ? t('donations.agreementForm.entityFixed') : undefined}
            data={
              agreement
                ? [{ value: agreement.entity_id, label: agreement.entity_name }]
                : entities.map((e) => ({ value: e.id, label: `${e.name} (${e.nif})` }))
            }
            searchable
            data-autofocus
            {...form.getInputProps('entity_id')}
          />
          <Checkbox.Group label={t('donations.agreementForm.establishments')} required {...form.getInputProps('establishment_ids')}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs" spacing="xs">
              {me.establishments.map((e) => (
                <Checkbox key={e.id} value={e.id} label={e.name} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group grow align="flex-start">
            <TextInput type="date" label={t('donations.agreementForm.validFrom')} required {...form.getInputProps('valid_from')} />
            <TextInput
              type="date"
              label={t('donations.agreementForm.validUntil')}
              description={t('donations.agreementForm.validUntilHint')}
              required
              {...form.getInputProps('valid_until')}
            />
            <Select
              label={t('donations.agreementForm.renewal')}
              data={AGREEMENT_RENEWALS.map((r) => ({ value: r, label: t(`donations.agreements.renewal.${r}`) }))}
              allowDeselect={false}
              {...form.getInputProps('renewal')}
            />
          </Group>
          <Checkbox.Group label={t('donations.agreementForm.categories')} required {...form.getInputProps('accepted_food_categories')}>
            <SimpleGrid cols={{ base: 2, sm: 3 }} mt="xs" spacing="xs">
              {FOOD_CATEGORIES.map((c) => (
                <Checkbox key={c} value={c} label={common(`categories.${c}`)} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Fieldset legend={t('donations.agreementForm.conditions')} variant="filled">
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
              {CONDITIONS.map((c) => (
                <Checkbox
                  key={c}
                  label={t(`donations.agreementForm.condition.${c}`)}
                  {...form.getInputProps(`conditions.${c}`, { type: 'checkbox' })}
                />
              ))}
            </SimpleGrid>
          </Fieldset>
          <Fieldset legend={t('donations.agreementForm.collection')} variant="filled">
            <Stack gap="sm">
              <Group grow align="flex-start">
                <TextInput
                  label={t('donations.agreementForm.schedule')}
                  description={t('donations.agreementForm.scheduleHint')}
                  required
                  maxLength={1000}
                  {...form.getInputProps('schedule')}
                />
                <Select
                  label={t('donations.agreementForm.transport')}
                  data={AGREEMENT_TRANSPORTS.map((r) => ({ value: r, label: t(`donations.agreementForm.transports.${r}`) }))}
                  allowDeselect={false}
                  {...form.getInputProps('transport')}
                />
              </Group>
              <Checkbox.Group label={t('donations.agreementForm.weekdays')} {...form.getInputProps('weekdays')}>
                <Group gap="md" mt="xs">
                  {WEEKDAYS.map((d) => (
                    <Checkbox key={d} value={d} label={common(`opening.weekdays.names.${d}`)} />
                  ))}
                </Group>
              </Checkbox.Group>
            </Stack>
          </Fieldset>
          <Textarea
            label={t('donations.agreementForm.storage')}
            required
            autosize
            minRows={2}
            maxLength={5000}
            {...form.getInputProps('storage_conditions')}
          />
          <Textarea
            label={t('donations.agreementForm.safety')}
            description={t('donations.agreementForm.safetyHint')}
            required
            autosize
            minRows={2}
            maxLength={5000}
            {...form.getInputProps('safety_responsibility_clause')}
          />
          <Textarea
            label={t('donations.agreementForm.refusal')}
            description={t('donations.agreementForm.refusalHint')}
            required
            autosize
            minRows={2}
            maxLength={5000}
            {...form.getInputProps('refusal_procedure')}
          />
          {error && <ErrorAlert error={error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {common('common.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending || update.isPending}>
              {agreement ? common('common.save') : t('donations.agreementForm.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
