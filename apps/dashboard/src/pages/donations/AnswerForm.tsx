import { Fieldset, Group, Radio, Stack, Text, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { type Donation, MAX_REFUSAL_REASON_LENGTH } from '@merma/schema';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ModalForm } from '../../components/SecretFormModal.tsx';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';

type Answer = { decision: 'accepted' | 'refused'; reason: string };
type Props = { donation: Donation; scope: { establishment_id: string; livemode: boolean }; onDone: () => void };

/**
 * The entity's answer as it gave it on paper or by phone, recorded by the kitchen: every line
 * accepted, or refused with its reason (Ley 1/2025 art. 7), as the API's `decision` takes it. The
 * signing link records its own; this is for the entity that answers without it.
 */
export function AnswerForm({ donation, scope, onDone }: Props) {
  const { t } = useTranslation('donations');
  const form = useForm<{ lines: Answer[] }>({
    initialValues: { lines: donation.lines.map(() => ({ decision: 'accepted', reason: '' })) },
    validate: {
      lines: {
        reason: (v: string, values: { lines: Answer[] }, path: string) =>
          values.lines[Number(path.split('.')[1])]?.decision === 'refused' && !v.trim() ? t('donations.answerForm.reasonRequired') : null,
      },
    },
  });
  const decide = useMutation({
    ...trpc.donations.decide.mutationOptions({
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('donations.answerForm.saved') });
        await Promise.all([
          queryClient.invalidateQueries(trpc.donations.list.pathFilter()),
          queryClient.invalidateQueries(trpc.donations.get.pathFilter()),
        ]);
        onDone();
      },
    }),
    meta: { inlineError: true },
  });
  const submit = (values: { lines: Answer[] }) =>
    decide.mutate({
      ...scope,
      id: donation.id,
      lines: donation.lines.map((line, i) => {
        const answer = values.lines[i] as Answer;
        return answer.decision === 'accepted'
          ? { line_id: line.id, decision: 'accepted' as const }
          : { line_id: line.id, decision: 'refused' as const, reason: answer.reason.trim() };
      }),
    });
  return (
    <ModalForm onSubmit={form.onSubmit(submit)} mutation={decide} submitLabel={t('donations.answerForm.submit')} onCancel={onDone}>
      <Text size="sm">{t('donations.answerForm.hint')}</Text>
      {donation.lines.map((line, i) => (
        <Fieldset key={line.id} legend={t('donations.answerForm.lineLegend', { n: line.position, description: line.description })}>
          <Stack gap="xs">
            <Radio.Group label={t('donations.answerForm.decision', { n: line.position })} {...form.getInputProps(`lines.${i}.decision`)}>
              <Group mt={4}>
                <Radio value="accepted" label={t('donations.lineStatus.accepted')} />
                <Radio value="refused" label={t('donations.lineStatus.refused')} />
              </Group>
            </Radio.Group>
            {form.getValues().lines[i]?.decision === 'refused' && (
              <Textarea
                label={t('donations.answerForm.reason', { n: line.position })}
                required
                autosize
                minRows={2}
                maxLength={MAX_REFUSAL_REASON_LENGTH}
                {...form.getInputProps(`lines.${i}.reason`)}
              />
            )}
          </Stack>
        </Fieldset>
      ))}
    </ModalForm>
  );
}
