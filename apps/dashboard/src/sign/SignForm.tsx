import { Button, Stack, Title } from '@mantine/core';
import type { DonationNote, SignDonationInput } from '@merma/schema';
import { IconSignature } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { emptyForm, type Field, fieldOrder, type LineAnswer, problemsFromServer, signatureBody, validate } from './answers.ts';
import { useSignI18n } from './i18n.ts';
import { FormSummary } from './parts/FormSummary.tsx';
import { LineCard } from './parts/LineCard.tsx';
import { NoteIntro } from './parts/NoteIntro.tsx';
import { SignatureField } from './parts/SignatureField.tsx';
import { SignerFields } from './parts/SignerFields.tsx';
import classes from './sign.module.css';
import { problemText } from './signer.ts';
import { useSignForm } from './use-sign-form.ts';

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
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { form, update, problems, count, focusTarget, submit, busy, sendProblem, alertRef } = useSignForm<
    ReturnType<typeof emptyForm>,
    Field,
    SignDonationInput
  >({
    initial: emptyForm,
    validate: (f) => validate(note, f),
    order: fieldOrder(note),
    body: (f) => signatureBody(note, f),
    fromServer: problemsFromServer,
    onSign,
  });

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  const answerLine = (id: string, answer: LineAnswer) => update((f) => ({ ...f, lines: { ...f.lines, [id]: answer } }));

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
          <SignerFields
            name={form.name}
            idDocument={form.idDocument}
            onChange={(change) => update((f) => ({ ...f, ...change }))}
            problems={problems}
            focusTarget={focusTarget}
            t={t}
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

        <FormSummary count={count} sendProblem={sendProblem} formProblem={problems.form} alertRef={alertRef} t={t} />

        <Button type="submit" size="xl" fullWidth loading={busy} leftSection={<IconSignature aria-hidden />}>
          {busy ? t('sign.submitting') : t('sign.submit')}
        </Button>
      </Stack>
    </form>
  );
}
