import { Alert, Button, Stack, TextInput, Title } from '@mantine/core';
import type { DonationNote, SignDonationInput } from '@merma/schema';
import { IconAlertTriangle, IconSignature } from '@tabler/icons-react';
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  emptyForm,
  type Field,
  type SignForm as Form,
  firstProblem,
  type LineAnswer,
  MAX_NAME_LENGTH,
  type Problems,
  problemsFromServer,
  signatureBody,
  validate,
} from './answers.ts';
import { LinkError, type LinkProblem } from './client.ts';
import { useSignI18n } from './i18n.ts';
import { LineCard, problemText } from './parts/LineCard.tsx';
import { NoteIntro } from './parts/NoteIntro.tsx';
import { SignatureField } from './parts/SignatureField.tsx';
import classes from './sign.module.css';

/** Problems of sending that leave the form as it is, to send again. */
type SendProblem = Extract<LinkProblem, 'offline' | 'server' | 'rate_limited' | 'invalid_input'>;
const isSendProblem = (p: LinkProblem): p is SendProblem =>
  p === 'offline' || p === 'server' || p === 'rate_limited' || p === 'invalid_input';

/**
 * The donation and the form to answer and sign it: each line accepted or refused with a reason,
 * who signs (name, identity document), the signature, the consent, Sign. Nothing is sent until the
 * form is complete; then the first field with a problem takes focus and the count of problems is
 * announced. A refusal from the server (400) is put back on the fields it names the same way.
 *
 * `onSign` sends the body; it resolves when the page moves on (signed, or a link that no longer
 * works), and throws a LinkError the form shows when the answer can be sent again.
 */
export function SignForm({ note, onSign }: { note: DonationNote; onSign: (body: SignDonationInput) => Promise<void> }) {
  const { t, locale } = useSignI18n();
  const [form, setForm] = useState<Form>(emptyForm);
  const [attempted, setAttempted] = useState(false);
  const [fromServer, setFromServer] = useState<Problems>({});
  const [sendProblem, setSendProblem] = useState<SendProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  // What is shown: the form's own problems once Sign was pressed, and the server's until the next change.
  const problems: Problems = useMemo(
    () => (attempted ? { ...fromServer, ...validate(note, form) } : fromServer),
    [attempted, fromServer, note, form],
  );

  // The control that takes focus for each field with a problem.
  const targets = useRef(new Map<Field, HTMLElement>());
  const refs = useRef(new Map<Field, (el: HTMLElement | null) => void>());
  const focusTarget = useCallback((field: Field) => {
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
    const field = firstProblem(note, found);
    const target = (field && targets.current.get(field)) ?? (field === 'form' ? alertRef.current : undefined);
    if (!target) return;
    target.focus();
    target.scrollIntoView?.({ block: 'center' });
  };

  const update = (change: (f: Form) => Form) => {
    setForm(change);
    setFromServer({});
  };
  const answerLine = (id: string, answer: LineAnswer) => update((f) => ({ ...f, lines: { ...f.lines, [id]: answer } }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setAttempted(true);
    setSendProblem(null);
    const found = validate(note, form);
    if (Object.keys(found).length > 0) {
      // After React has drawn the problems (a refused line's reason appears only now).
      requestAnimationFrame(() => focusFirst(found));
      return;
    }
    const body = signatureBody(note, form);
    setBusy(true);
    try {
      await onSign(body);
    } catch (error) {
      if (!(error instanceof LinkError) || !isSendProblem(error.problem)) throw error;
      setSendProblem(error.problem);
      if (error.problem === 'invalid_input') {
        const refused = problemsFromServer(body, error.details);
        setFromServer(refused);
        requestAnimationFrame(() => focusFirst(refused));
      } else requestAnimationFrame(() => alertRef.current?.focus());
    } finally {
      setBusy(false);
    }
  };

  const count = Object.keys(problems).filter((f) => f !== 'form').length;
  const formProblem = problems.form;
  return (
    <form onSubmit={submit} noValidate aria-busy={busy}>
      <Stack gap="lg">
        <NoteIntro note={note} t={t} locale={locale} headingRef={headingRef} />

        <Stack component="section" aria-labelledby="lines-title" gap="sm">
          <Title order={2} id="lines-title" size="h3">
            {t('sign.lines.title', { count: note.lines.length })}
          </Title>
          {note.lines.map((line) => (
            <LineCard
              key={line.id}
              line={line}
              answer={form.lines[line.id]}
              onAnswer={(a) => answerLine(line.id, a)}
              problems={{
                decision: problems[`decision:${line.id}`],
                reason: problems[`reason:${line.id}`],
                detail: problems[`detail:${line.id}`],
              }}
              focusTarget={(field) => focusTarget(`${field}:${line.id}`)}
              t={t}
              locale={locale}
            />
          ))}
        </Stack>

        <Stack component="section" aria-labelledby="signer-title" gap="sm">
          <Title order={2} id="signer-title" size="h3">
            {t('sign.signer.title')}
          </Title>
          <TextInput
            ref={focusTarget('name')}
            id="signer-name"
            size="lg"
            label={t('sign.signer.name')}
            autoComplete="name"
            maxLength={MAX_NAME_LENGTH}
            value={form.name}
            onChange={(e) => {
              const name = e.currentTarget.value;
              update((f) => ({ ...f, name }));
            }}
            error={problemText(t, problems.name)}
            required
          />
          <TextInput
            ref={focusTarget('id_document')}
            id="signer-id-document"
            size="lg"
            label={t('sign.signer.idDocument')}
            description={t('sign.signer.idHint')}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            maxLength={40}
            value={form.idDocument}
            onChange={(e) => {
              const idDocument = e.currentTarget.value;
              update((f) => ({ ...f, idDocument }));
            }}
            error={problemText(t, problems.id_document)}
            required
          />
        </Stack>

        <Stack component="section" aria-labelledby="signature-title" gap="sm">
          <Title order={2} id="signature-title" size="h3">
            {t('sign.signature.title')}
          </Title>
          <SignatureField
            value={form.signature}
            onChange={(signature) => update((f) => ({ ...f, signature }))}
            problem={problems.signature}
            focusTarget={focusTarget('signature')}
            t={t}
          />
        </Stack>

        <div>
          <label className={classes.consent} data-checked={form.consent || undefined} data-invalid={problems.consent ? true : undefined}>
            <input
              ref={focusTarget('consent')}
              type="checkbox"
              checked={form.consent}
              onChange={(e) => {
                const consent = e.currentTarget.checked;
                update((f) => ({ ...f, consent }));
              }}
              aria-describedby={problems.consent ? 'consent-error' : undefined}
            />
            <span>{t('sign.consent', { entity: note.entity.name })}</span>
          </label>
          {problems.consent && (
            <div id="consent-error" className={classes.error}>
              {problemText(t, problems.consent)}
            </div>
          )}
        </div>

        {(count > 0 || sendProblem || formProblem) && (
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
        )}

        <Button type="submit" size="xl" fullWidth loading={busy} leftSection={<IconSignature aria-hidden />}>
          {busy ? t('sign.submitting') : t('sign.submit')}
        </Button>
      </Stack>
    </form>
  );
}
