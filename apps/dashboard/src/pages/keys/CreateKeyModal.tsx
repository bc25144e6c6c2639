import { Checkbox, Input, SegmentedControl, SimpleGrid, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useId } from '@mantine/hooks';
import { ALL_PERMISSIONS, PERMISSIONS, type Permission } from '@merma/schema';
import { CreateApiKeyInput, type KeyMode } from '@merma/schema/dashboard';
import { useTranslation } from 'react-i18next';
import { ModalForm, SecretFormModal, type ShownSecret, useMutationKeepingResult } from '../../components/SecretFormModal.tsx';
import { rule } from '../../lib/validation.ts';
import { trpc } from '../../trpc.ts';

type Props = {
  opened: boolean;
  onClose: () => void;
  establishmentId: string;
  defaultMode: KeyMode;
};

type Values = { name: string; mode: KeyMode; all: boolean; permissions: Permission[] };

/**
 * Render it only while open (its state starts afresh each time). Creates a key in two steps: the form, then the key itself, shown once in a read-only view that
 * only an explicit "I have copied it" closes.
 */
export function CreateKeyModal({ opened, onClose, establishmentId, defaultMode }: Props) {
  const { t } = useTranslation();
  const modeLabelId = useId();
  const form = useForm<Values>({
    initialValues: { name: '', mode: defaultMode, all: true, permissions: [] },
    validate: {
      name: rule(CreateApiKeyInput.shape.name, t('validation.keyName')),
      permissions: (value, values) => (values.all || value.length > 0 ? null : t('validation.permissions')),
    },
  });
  const { mutation: create, result: created } = useMutationKeepingResult(trpc.keys.create.mutationOptions(), trpc.keys.pathFilter());

  const shown: ShownSecret | null = created
    ? { title: t('keys.created.title'), label: t('keys.created.label'), secret: created.key, warning: t('keys.created.warning') }
    : null;

  return (
    <SecretFormModal opened={opened} onClose={onClose} title={t('keys.form.title')} shown={shown}>
      <ModalForm
        onSubmit={form.onSubmit((values) =>
          create.mutate({
            establishment_id: establishmentId,
            name: values.name.trim(),
            mode: values.mode,
            permissions: values.all ? [ALL_PERMISSIONS] : values.permissions,
          }),
        )}
        mutation={create}
        submitLabel={t('keys.form.submit')}
        onCancel={onClose}
      >
        <TextInput
          label={t('keys.form.name')}
          description={t('keys.form.nameHint')}
          required
          data-autofocus
          {...form.getInputProps('name')}
        />
        <Input.Wrapper labelElement="div" label={<span id={modeLabelId}>{t('keys.form.mode')}</span>} description={t('keys.form.modeHint')}>
          <SegmentedControl
            aria-labelledby={modeLabelId}
            mt={4}
            data={[
              { value: 'test', label: t('mode.test') },
              { value: 'live', label: t('mode.live') },
            ]}
            {...form.getInputProps('mode')}
          />
        </Input.Wrapper>
        <Checkbox label={t('keys.form.allPermissions')} {...form.getInputProps('all', { type: 'checkbox' })} />
        {!form.values.all && (
          <Checkbox.Group label={t('keys.form.permissions')} required {...form.getInputProps('permissions')}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs" spacing="xs">
              {PERMISSIONS.map((p) => (
                <Checkbox key={p} value={p} label={p} description={t(`permissions.${p}`)} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
        )}
        <Text size="xs" c="dimmed">
          {t('keys.form.shownOnce')}
        </Text>
      </ModalForm>
    </SecretFormModal>
  );
}
