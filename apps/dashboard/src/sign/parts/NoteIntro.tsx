import { Paper, Text, Title } from '@mantine/core';
import type { DonationNote } from '@merma/schema';
import type { Ref } from 'react';
import { formatMoment } from '../format.ts';
import type { SignT } from '../i18n.ts';
import classes from '../sign.module.css';

/** Who gives, who receives, when it was offered and until when the link works. */
export function NoteIntro({
  note,
  t,
  locale,
  headingRef,
}: {
  note: DonationNote;
  t: SignT;
  locale: string;
  headingRef?: Ref<HTMLHeadingElement>;
}) {
  const donor = [note.donor.organization, note.donor.establishment].filter((v, i, all) => v && all.indexOf(v) === i).join(' — ');
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={1} size="h2" ref={headingRef} tabIndex={-1}>
        {t('sign.intro.title')}
      </Title>
      <Text mt="xs">{t('sign.intro.lead', { donor: note.donor.organization, entity: note.entity.name })}</Text>
      <dl className={classes.facts}>
        <div>
          <dt>{t('sign.intro.donor')}</dt>
          <dd>
            {donor}
            {note.donor.cif && (
              <>
                <br />
                {t('sign.intro.cif', { cif: note.donor.cif })}
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('sign.intro.entity')}</dt>
          <dd>
            {note.entity.name}
            <br />
            {t('sign.intro.nif', { nif: note.entity.nif })}
          </dd>
        </div>
        <div>
          <dt>{t('sign.intro.offeredAt')}</dt>
          <dd>{formatMoment(locale, note.offered_at)}</dd>
        </div>
        <div>
          <dt>{t('sign.intro.expiresAt')}</dt>
          <dd>{formatMoment(locale, note.expires_at)}</dd>
        </div>
      </dl>
    </Paper>
  );
}
