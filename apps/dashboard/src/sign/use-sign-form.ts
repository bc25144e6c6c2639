import { type FormEvent, useCallback, useRef, useState } from 'react';
import { LinkError, type LinkProblem } from './client.ts';
import type { Problem } from './signer.ts';

/** Problems of sending that leave the form as it is, to send again. */
export type SendProblem = Extract<LinkProblem, 'offline' | 'server' | 'rate_limited' | 'invalid_input'>;
const isSendProblem = (p: LinkProblem): p is SendProblem =>
  p === 'offline' || p === 'server' || p === 'rate_limited' || p === 'invalid_input';

/**
 * How a signing form behaves, whatever it signs (a donation's note, a year's certificate): nothing
 * is sent until `validate` finds nothing; then, or when the server refuses fields (a 400's details,
 * put back by `fromServer`), the first field with a problem in `order` takes focus (`form`, the
 * form as a whole, focuses the summary); the server's problems stay until the next change; a
 * problem of sending (no connection, the server, too many attempts) keeps the form to send again.
 *
 * `onSign` sends the body; it resolves when the page moves on (signed, or a link that no longer
 * works), and throws a LinkError the form shows when the answer can be sent again.
 */
export function useSignForm<Form, F extends string, Body>({
  initial,
  validate,
  order,
  body,
  fromServer: refused,
  onSign,
}: {
  initial: () => Form;
  validate: (form: Form) => Partial<Record<F | 'form', Problem>>;
  /** The fields in the order they are on the page. */
  order: readonly F[];
  body: (form: Form) => Body;
  fromServer: (sent: Body, details: LinkError['details']) => Partial<Record<F | 'form', Problem>>;
  onSign: (body: Body) => Promise<void>;
}) {
  type Problems = Partial<Record<F | 'form', Problem>>;
  const [form, setForm] = useState<Form>(initial);
  const [attempted, setAttempted] = useState(false);
  const [fromServer, setFromServer] = useState<Problems>({});
  const [sendProblem, setSendProblem] = useState<SendProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const alertRef = useRef<HTMLDivElement>(null);

  // What is shown: the form's own problems once Sign was pressed, and the server's until the next change.
  const problems: Problems = attempted ? { ...fromServer, ...validate(form) } : fromServer;

  // The control that takes focus for each field with a problem.
  const targets = useRef(new Map<F, HTMLElement>());
  const refs = useRef(new Map<F, (el: HTMLElement | null) => void>());
  const focusTarget = useCallback((field: F) => {
    let ref = refs.current.get(field);
    if (!ref) {
      ref = (el) => {
        if (el) targets.current.set(field, el);
        else targets.current.delete(field);
      };
      refs.current.set(field, ref);
    }
    return ref;
  }, []);
  const focusFirst = (found: Problems) => {
    const field = order.find((f) => f !== 'form' && found[f] !== undefined) ?? (found.form ? 'form' : undefined);
    const target = field === 'form' ? alertRef.current : field && targets.current.get(field);
    if (!target) return;
    target.focus();
    target.scrollIntoView?.({ block: 'center' });
  };

  const update = (change: (f: Form) => Form) => {
    setForm(change);
    setFromServer({});
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setAttempted(true);
    setSendProblem(null);
    const found = validate(form);
    if (Object.keys(found).length > 0) {
      // After React has drawn the problems (a field shown only now, such as a refused line's reason).
      requestAnimationFrame(() => focusFirst(found));
      return;
    }
    const sent = body(form);
    setBusy(true);
    try {
      await onSign(sent);
    } catch (error) {
      if (!(error instanceof LinkError) || !isSendProblem(error.problem)) throw error;
      setSendProblem(error.problem);
      if (error.problem === 'invalid_input') {
        const found = refused(sent, error.details);
        setFromServer(found);
        requestAnimationFrame(() => focusFirst(found));
      } else requestAnimationFrame(() => alertRef.current?.focus());
    } finally {
      setBusy(false);
    }
  };

  /** How many fields have a problem (the form's own is said in the summary). */
  const count = Object.keys(problems).filter((f) => f !== 'form').length;
  return { form, update, problems, count, focusTarget, submit, busy, sendProblem, alertRef };
}
