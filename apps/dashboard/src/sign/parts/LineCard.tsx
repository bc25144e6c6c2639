import { Paper, Stack, Textarea, Title } from '@mantine/core';
import type { DonationNote } from '@merma/schema';
import type { ReactNode } from 'react';
import { type LineAnswer, MAX_REASON_LENGTH, REFUSAL_REASONS, type RefusalReason } from '../answers.ts';
import { formatDay, formatNumber } from '../format.ts';
import type { SignT } from '../i18n.ts';
import classes from '../sign.module.css';
import { type Problem, problemText } from '../signer.ts';
import { ChoiceGroup } from './ChoiceGroup.tsx';

type Line = DonationNote['lines'][number];

/** What is known of the line: quantity, net weight, lot, dates, storage, cooked, allergens, temperature. */
function LineFacts({ line, t, locale }: { line: Line; t: SignT; locale: string }) {
  const facts: [label: string, value: ReactNode][] = [
    [t('sign.lines.quantity'), t(`sign.units.${line.unit}`, { count: line.quantity, value: formatNumber(locale, line.quantity) })],
    [t('sign.lines.netKg'), t('sign.lines.kg', { value: formatNumber(locale, line.net_kg) })],
  ];
  if (line.lot) facts.push([t('sign.lines.lot'), line.lot]);
  if (line.best_before) facts.push([t('sign.lines.bestBefore'), formatDay(locale, line.best_before)]);
  if (line.use_by) facts.push([t('sign.lines.useBy'), formatDay(locale, line.use_by)]);
  facts.push([t('sign.lines.storage'), t(`sign.storage.${line.storage}`)]);
  facts.push([t('sign.lines.cooked'), line.cooked ? t('sign.lines.yes') : t('sign.lines.no')]);
  if (line.temperature_c !== null) {
    facts.push([t('sign.lines.temperature'), t('sign.lines.celsius', { value: formatNumber(locale, line.temperature_c) })]);
  }
  const allergens = line.allergens.length ? line.allergens.map((a) => t(`sign.allergens.${a}`)).join(', ') : t('sign.lines.noAllergens');
  facts.push([t('sign.lines.allergens'), allergens]);
  return (
    <dl className={classes.facts}>
      {facts.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * One line of the donation: what it is, and the volunteer's answer — Accept or Refuse, and for a
 * refusal a reason (a common one or their own words; their words are required for "another reason").
 */
export function LineCard({
  line,
  answer,
  onAnswer,
  problems,
  focusTarget,
  t,
  locale,
}: {
  line: Line;
  answer: LineAnswer | undefined;
  onAnswer: (answer: LineAnswer) => void;
  problems: { decision?: Problem | undefined; reason?: Problem | undefined; detail?: Problem | undefined };
  /** Registers the control that takes focus for each of the line's fields. */
  focusTarget: (field: 'decision' | 'reason' | 'detail') => (el: HTMLElement | null) => void;
  t: SignT;
  locale: string;
}) {
  const id = line.id;
  const titleId = `line-${id}-title`;
  const refused = answer?.decision === 'refused' ? answer : null;
  const detailRequired = refused?.reason === 'other';
  return (
    <Paper component="section" aria-labelledby={titleId} withBorder p="md" radius="md">
      <Title order={3} id={titleId} size="h4">
        {line.position}. {line.description}
      </Title>
      <LineFacts line={line} t={t} locale={locale} />
      <Stack gap="md">
        <ChoiceGroup
          name={`decision-${id}`}
          legend={t('sign.lines.decisionLegend', { description: line.description })}
          options={[
            { value: 'accepted', label: t('sign.lines.accept') },
            { value: 'refused', label: t('sign.lines.refuse'), tone: 'refuse' },
          ]}
          value={answer?.decision ?? null}
          onChange={(decision) =>
            onAnswer(decision === 'accepted' ? { decision } : { decision, reason: refused?.reason ?? null, detail: refused?.detail ?? '' })
          }
          error={problemText(t, problems.decision)}
          errorId={`line-${id}-decision-error`}
          focusRef={focusTarget('decision')}
        />
        {refused && (
          <>
            <ChoiceGroup<RefusalReason>
              name={`reason-${id}`}
              legend={t('sign.lines.reasonLegend')}
              description={t('sign.lines.reasonNote')}
              layout="list"
              options={REFUSAL_REASONS.map((r) => ({ value: r, label: t(`sign.reasons.${r}`) }))}
              value={refused.reason}
              onChange={(reason) => onAnswer({ ...refused, reason })}
              error={problemText(t, problems.reason)}
              errorId={`line-${id}-reason-error`}
              focusRef={focusTarget('reason')}
            />
            <Textarea
              ref={focusTarget('detail')}
              id={`line-${id}-detail`}
              size="lg"
              autosize
              minRows={2}
              maxLength={MAX_REASON_LENGTH}
              label={detailRequired ? t('sign.lines.detail') : t('sign.lines.detailOptional')}
              required={detailRequired}
              value={refused.detail}
              onChange={(e) => onAnswer({ ...refused, detail: e.currentTarget.value })}
              error={problemText(t, problems.detail)}
            />
          </>
        )}
      </Stack>
    </Paper>
  );
}
