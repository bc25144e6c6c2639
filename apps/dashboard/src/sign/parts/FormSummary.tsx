import { Alert } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { Ref } from 'react';
import type { SignT } from '../i18n.ts';
import { type Problem, problemText } from '../signer.ts';
import type { SendProblem } from '../use-sign-form.ts';

/**
 * Above the Sign button, once there is something to say: how many fields are missing, or why the
 * signature was not sent (no connection, the server, too many attempts, fields it refused), with
 * the server's words for a refusal that names no field. An alert, so it is announced; it takes
 * focus when sending failed (use-sign-form.ts).
 */
export function FormSummary({
  count,
  sendProblem,
  formProblem,
  alertRef,
  t,
}: {
  count: number;
  sendProblem: SendProblem | null;
  formProblem: Problem | undefined;
  alertRef: Ref<HTMLDivElement>;
  t: SignT;
}) {
  if (count === 0 && !sendProblem && !formProblem) return null;
  return (
    <Alert
      ref={alertRef}
      tabIndex={-1}
      role="alert"
      color={sendProblem === 'offline' || sendProblem === 'server' || sendProblem === 'rate_limited' ? 'orange' : 'red'}
      icon={<IconAlertTriangle aria-hidden />}
    >
      {sendProblem ? t(`sign.sendErrors.${sendProblem}`) : t('sign.summary', { count })}
      {formProblem?.serverMessage ? ` ${problemText(t, formProblem)}` : ''}
    </Alert>
  );
}
