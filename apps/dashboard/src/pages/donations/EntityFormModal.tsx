import { ActionIcon, Button, Checkbox, Fieldset, Group, Modal, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ENTITY_LEGAL_FORMS, EntityContact, EntityNif, MAX_ENTITY_CONTACTS, type SocialEntity } from '@merma/schema';
import { IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { notifications } from '../../lib/notify.ts';
import { rule } from '../../lib/validation.ts';
import { queryClient, trpc } from '../../trpc.ts';

type Contact = { name: string; role: string; phone: string; email: string };
type Values = {
  name: string;
  nif: string;
  address: string;
  legal_form: string;
  registry_number: string;
  art2_entity: boolean;
  regime_opted_in: boolean;
  food_bank_network: string;
  contacts: Contact[];
  cold_chain: boolean;
  vehicle: boolean;
  capacity_notes: string;
};

const emptyContact = (): Contact => ({ name: '', role: '', phone: '', email: '' });
/** An optional text as sent: trimmed, and null when nothing is left (which clears it on an update). */
const optional = (value: string) => value.trim() || null;

/**
 * A new social entity (`entity` null) or one's fields: the NIF (a legal person's, checked as the
 * server checks it, in any usual spelling), legal form, registry number, Ley 49/2002 status, food
 * bank network, contacts and capacity. The server checks again and says what it refuses (a NIF the
 * organisation already has: 409).
 */
export function EntityFormModal({ entity, onClose }: { entity: SocialEntity | null; onClose: () => void }) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const form = useForm<Values>({
    initialValues: {
      name: entity?.name ?? '',
      nif: entity?.nif ?? '',
      address: entity?.address ?? '',
      legal_form: entity?.legal_form ?? '',
      registry_number: entity?.registry_number ?? '',
      art2_entity: entity?.ley_49_2002.art2_entity ?? false,
      regime_opted_in: entity?.ley_49_2002.regime_opted_in ?? false,
      food_bank_network: entity?.food_bank_network ?? '',
      contacts: (entity?.contacts ?? []).map((c) => ({ name: c.name, role: c.role ?? '', phone: c.phone ?? '', email: c.email ?? '' })),
      cold_chain: entity?.capacity.cold_chain ?? false,
      vehicle: entity?.capacity.vehicle ?? false,
      capacity_notes: entity?.capacity.notes ?? '',
    },
    validate: {
      name: (v) => (v.trim() ? null : t('donations.entityForm.nameRequired')),
      nif: rule(EntityNif, t('donations.entityForm.nifInvalid')),
      address: (v) => (v.trim() ? null : t('donations.entityForm.addressRequired')),
      legal_form: (v) => (v ? null : t('donations.entityForm.legalFormRequired')),
      contacts: {
        name: (v) => (v.trim() ? null : t('donations.entityForm.contactNameRequired')),
        email: (v) =>
          v.trim() === '' || EntityContact.shape.email.safeParse(v.trim()).success ? null : t('donations.entityForm.emailInvalid'),
      },
    },
  });
  const done = async (saved: SocialEntity) => {
    notifications.show({
      color: 'teal',
      message: t(entity ? 'donations.entityForm.saved' : 'donations.entityForm.created', { name: saved.name }),
    });
    await queryClient.invalidateQueries(trpc.donations.pathFilter());
    onClose();
  };
  const create = useMutation(trpc.donations.createEntity.mutationOptions({ meta: { inlineError: true }, onSuccess: done }));
  const update = useMutation(trpc.donations.updateEntity.mutationOptions({ meta: { inlineError: true }, onSuccess: done }));
  const error = create.error ?? update.error;

  const submit = (v: Values) => {
    const fields = {
      name: v.name.trim(),
      nif: v.nif,
      address: v.address.trim(),
      legal_form: v.legal_form as SocialEntity['legal_form'],
      registry_number: optional(v.registry_number),
      ley_49_2002: { art2_entity: v.art2_entity, regime_opted_in: v.regime_opted_in },
      food_bank_network: optional(v.food_bank_network),
      contacts: v.contacts.map((c) => ({
        name: c.name.trim(),
        role: optional(c.role),
        phone: optional(c.phone),
        email: optional(c.email),
      })),
      capacity: { cold_chain: v.cold_chain, vehicle: v.vehicle, notes: optional(v.capacity_notes) },
    };
    if (entity) update.mutate({ id: entity.id, ...fields });
    else create.mutate(fields);
  };

  return (
    <Modal
      opened
      onClose={onClose}
      size="lg"
      title={entity ? t('donations.entityForm.editTitle', { name: entity.name }) : t('donations.entityForm.newTitle')}
    >
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack gap="sm">
          <TextInput label={t('donations.entityForm.name')} required maxLength={200} data-autofocus {...form.getInputProps('name')} />
          <Group grow align="flex-start">
            <TextInput
              label={t('donations.entityForm.nif')}
              description={t('donations.entityForm.nifHint')}
              required
              maxLength={20}
              {...form.getInputProps('nif')}
            />
            <Select
              label={t('donations.entityForm.legalForm')}
              required
              data={ENTITY_LEGAL_FORMS.map((f) => ({ value: f, label: t(`donations.legalForms.${f}`) }))}
              {...form.getInputProps('legal_form')}
            />
          </Group>
          <TextInput label={t('donations.entityForm.address')} required maxLength={500} {...form.getInputProps('address')} />
          <Group grow align="flex-start">
            <TextInput
              label={t('donations.entityForm.registryNumber')}
              description={t('donations.entityForm.registryHint')}
              maxLength={100}
              {...form.getInputProps('registry_number')}
            />
            <TextInput
              label={t('donations.entityForm.network')}
              description={t('donations.entityForm.networkHint')}
              maxLength={100}
              {...form.getInputProps('food_bank_network')}
            />
          </Group>
          <Fieldset legend={t('donations.entityForm.ley49')} variant="filled">
            <Stack gap="xs">
              <Checkbox
                label={t('donations.entityForm.art2')}
                description={t('donations.entityForm.art2Hint')}
                {...form.getInputProps('art2_entity', { type: 'checkbox' })}
              />
              <Checkbox
                label={t('donations.entityForm.regime')}
                description={t('donations.entityForm.regimeHint')}
                {...form.getInputProps('regime_opted_in', { type: 'checkbox' })}
              />
            </Stack>
          </Fieldset>
          <Fieldset legend={t('donations.entityForm.capacity')} variant="filled">
            <Stack gap="xs">
              <Group gap="lg">
                <Checkbox label={t('donations.entities.coldChain')} {...form.getInputProps('cold_chain', { type: 'checkbox' })} />
                <Checkbox label={t('donations.entities.vehicle')} {...form.getInputProps('vehicle', { type: 'checkbox' })} />
              </Group>
              <Textarea
                label={t('donations.entityForm.capacityNotes')}
                autosize
                minRows={2}
                maxLength={2000}
                {...form.getInputProps('capacity_notes')}
              />
            </Stack>
          </Fieldset>
          <Fieldset legend={t('donations.entityForm.contacts')} variant="filled">
            <Stack gap="sm">
              {form.values.contacts.length === 0 && (
                <Text size="sm" c="dimmed">
                  {t('donations.entityForm.noContacts')}
                </Text>
              )}
              {form.values.contacts.map((_, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a contact has no id; the list is edited in place
                <Stack key={i} gap={4} data-testid="contact">
                  <Group grow align="flex-start">
                    <TextInput
                      label={t('donations.entityForm.contactName', { n: i + 1 })}
                      required
                      maxLength={200}
                      {...form.getInputProps(`contacts.${i}.name`)}
                    />
                    <TextInput
                      label={t('donations.entityForm.contactRole', { n: i + 1 })}
                      maxLength={200}
                      {...form.getInputProps(`contacts.${i}.role`)}
                    />
                  </Group>
                  <Group grow align="flex-end">
                    <TextInput
                      label={t('donations.entityForm.contactPhone', { n: i + 1 })}
                      type="tel"
                      maxLength={40}
                      {...form.getInputProps(`contacts.${i}.phone`)}
                    />
                    <TextInput
                      label={t('donations.entityForm.contactEmail', { n: i + 1 })}
                      type="email"
                      maxLength={254}
                      {...form.getInputProps(`contacts.${i}.email`)}
                    />
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      size="lg"
                      style={{ flexGrow: 0 }}
                      onClick={() => form.removeListItem('contacts', i)}
                      aria-label={t('donations.entityForm.removeContact', { n: i + 1 })}
                    >
                      <IconTrash size={18} aria-hidden />
                    </ActionIcon>
                  </Group>
                </Stack>
              ))}
              {form.values.contacts.length < MAX_ENTITY_CONTACTS && (
                <Group>
                  <Button variant="default" size="xs" onClick={() => form.insertListItem('contacts', emptyContact())}>
                    {t('donations.entityForm.addContact')}
                  </Button>
                </Group>
              )}
            </Stack>
          </Fieldset>
          {error && <ErrorAlert error={error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {common('common.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending || update.isPending}>
              {entity ? common('common.save') : t('donations.entityForm.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
