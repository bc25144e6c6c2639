import { Button, Group, type MantineColor, Modal, Stack } from '@mantine/core';
import { type QueryFilters, type UseMutationOptions, useMutation } from '@tanstack/react-query';
import { type FormEventHandler, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { queryClient } from '../trpc.ts';
import { ErrorAlert } from './ErrorAlert.tsx';
import { SecretShownOnce, secretModalProps } from './SecretShownOnce.tsx';

/**
 * A modal's mutation whose answer the modal goes on to show (a created key, a new signing secret):
 * on success it keeps the answer, then refreshes the queries the mutation changed (only those) and
 * stays pending until they are fresh. Its error is the form's to show (`inlineError`), so no
 * notification is raised. `options` are a tRPC procedure's `mutationOptions(...)`; their own
 * `onSuccess` runs before the answer is kept.
 */
export function useMutationKeepingResult<TData, TError, TVariables, TContext>(
  options: UseMutationOptions<TData, TError, TVariables, TContext>,
  invalidates: QueryFilters,
) {
  const [result, setResult] = useState<TData | null>(null);
  const mutation = useMutation({
    ...options,
    meta: { ...options.meta, inlineError: true },
    onSuccess: async (data, variables, onMutateResult, context) => {
      await options.onSuccess?.(data, variables, onMutateResult, context);
      setResult(data);
      return queryClient.invalidateQueries(invalidates);
    },
  });
  return { mutation, result };
}

/** What a `SecretFormModal` shows once its mutation answered with a secret. */
export type ShownSecret = {
  /** The modal's title while the secret is shown. */
  title: string;
  /** The secret's label, e.g. "API key". */
  label: string;
  secret: string;
  warning: string;
  multiline?: boolean;
};

type SecretFormModalProps = {
  opened?: boolean;
  onClose: () => void;
  /** The modal's title while its form is shown. */
  title: string;
  /** Null until the mutation answered with a secret; from then on only "I have copied it" leaves. */
  shown: ShownSecret | null;
  /** The form step (usually a `ModalForm`). */
  children: ReactNode;
};

/**
 * A form in a modal whose answer holds a secret the server shows once: the form, then the secret in
 * `SecretShownOnce`, the modal locked (`secretModalProps`) until "I have copied it".
 */
export function SecretFormModal({ opened = true, onClose, title, shown, children }: SecretFormModalProps) {
  return (
    <Modal
      opened={opened}
      onClose={shown ? () => {} : onClose}
      title={shown ? shown.title : title}
      size="lg"
      {...(shown ? secretModalProps : {})}
    >
      {shown ? (
        <SecretShownOnce label={shown.label} secret={shown.secret} warning={shown.warning} onDone={onClose} multiline={shown.multiline} />
      ) : (
        children
      )}
    </Modal>
  );
}

type ModalFormProps = {
  onSubmit: FormEventHandler<HTMLFormElement>;
  /** The mutation the form runs: its error is shown above the fields, the submit button waits for it. */
  mutation: { error: unknown; isPending: boolean };
  submitLabel: string;
  submitColor?: MantineColor;
  onCancel: () => void;
  /** The cancel button's text; "Cancel" unless given. */
  cancelLabel?: string;
  /** The fields. */
  children: ReactNode;
};

/** A modal's form: the mutation's error, the fields, then cancel and submit (pending while the mutation runs). */
export function ModalForm({ onSubmit, mutation, submitLabel, submitColor, onCancel, cancelLabel, children }: ModalFormProps) {
  const { t } = useTranslation();
  return (
    <form noValidate onSubmit={onSubmit}>
      <Stack gap="md">
        {mutation.error ? <ErrorAlert error={mutation.error} /> : null}
        {children}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {cancelLabel ?? t('common.cancel')}
          </Button>
          <Button type="submit" color={submitColor} loading={mutation.isPending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
