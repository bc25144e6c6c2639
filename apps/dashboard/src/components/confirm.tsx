import { Button, type ButtonProps, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { whenModalsReady } from './DeferredModals.tsx';

export type ConfirmOptions = {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** Destructive actions get a red confirm button. */
  danger?: boolean;
  onConfirm: () => void;
};

/**
 * Asks before doing something that cannot be undone (Mantine's confirm modal, translated buttons).
 * The dialog opens once Mantine's modals manager is mounted and its package loaded, the first time
 * a few milliseconds after the click (DeferredModals.tsx).
 */
export function useConfirm() {
  const { t } = useTranslation();
  return useCallback(
    ({ title, message, confirmLabel, danger = true, onConfirm }: ConfirmOptions) => {
      void Promise.all([import('@mantine/modals'), whenModalsReady()]).then(([{ modals }]) =>
        modals.openConfirmModal({
          title,
          children: typeof message === 'string' ? <Text size="sm">{message}</Text> : message,
          labels: { confirm: confirmLabel, cancel: t('common.cancel') },
          confirmProps: { color: danger ? 'red' : undefined },
          onConfirm,
        }),
      );
    },
    [t],
  );
}

type ConfirmButtonProps = Omit<ConfirmOptions, 'confirmLabel'> &
  Omit<ButtonProps, 'children'> & {
    /** The button's text; also the confirm button's, unless `confirmLabel` says otherwise. */
    label: string;
    confirmLabel?: string;
    disabled?: boolean;
    /** A fuller name for assistive technology, e.g. "Revoke key Production". */
    'aria-label'?: string;
  };

/** A button that asks for confirmation before it acts. */
export function ConfirmButton({ label, title, message, confirmLabel, danger = true, onConfirm, ...button }: ConfirmButtonProps) {
  const confirm = useConfirm();
  return (
    <Button
      color={danger ? 'red' : undefined}
      variant="light"
      {...button}
      onClick={() => confirm({ title, message, confirmLabel: confirmLabel ?? label, danger, onConfirm })}
    >
      {label}
    </Button>
  );
}
