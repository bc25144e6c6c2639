import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../components/confirm.tsx';
import { useLeaveApp } from '../lib/session.ts';
import { trpc } from '../trpc.ts';

/** Signing out here, or everywhere (every session of the account, after a confirmation). */
export function useSignOut() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const leaveApp = useLeaveApp();
  const signOut = useMutation(trpc.accounts.signOut.mutationOptions({ onSettled: () => leaveApp() }));
  const signOutEverywhere = useMutation(trpc.accounts.signOutEverywhere.mutationOptions({ onSuccess: () => leaveApp() }));
  return {
    signOut: () => signOut.mutate(),
    signingOut: signOut.isPending,
    signOutEverywhere: () =>
      confirm({
        title: t('shell.signOutEverywhere'),
        message: t('shell.signOutEverywhereConfirm'),
        confirmLabel: t('shell.signOutEverywhere'),
        onConfirm: () => signOutEverywhere.mutate(),
      }),
  };
}
