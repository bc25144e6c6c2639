import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { DONATION_LINK_DEFAULT_HOURS, DONATION_LINK_MAX_HOURS } from '@merma/schema';
import { IconLink } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { trpc } from '../../trpc.ts';
import type { SignedCertificateTarget } from './SignedCertificateModal.tsx';
import { SigningLink } from './SigningLink.tsx';

/** How long the link may work, in hours: a day, the API's default, and the longest it allows. */
const LIFETIMES = [24, DONATION_LINK_DEFAULT_HOURS, DONATION_LINK_MAX_HOURS] as const;

/**
 * The entity's link to sign the year's certificate of one company's gifts
 * (`donations.createCertificateLink`): what the representative will do through it and how long it
 * works, then the link itself, shown this once with its QR code and expiry (SigningLink) — only its
 * own button leaves it. Signing replaces the signed certificate stored, and a new link the last
 * one; the page says both. The server refuses a member who may not make it, whatever this shows.
 */
export function CertificateLinkModal({ target, onClose }: { target: SignedCertificateTarget; onClose: () => void }) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const { entity, cif, year, livemode } = target;
  const [hours, setHours] = useState<number>(DONATION_LINK_DEFAULT_HOURS);
  const make = useMutation({ ...trpc.donations.createCertificateLink.mutationOptions(), meta: { inlineError: true } });
  const link = make.data;

  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      title={t('donations.taxPack.link.title', { entity: entity.name, year, cif })}
      // The link is shown once: only its own button leaves it.
      {...(link ? { closeOnClickOutside: false, closeOnEscape: false, withCloseButton: false } : {})}
    >
      {link ? (
        <SigningLink link={link} warning={t('donations.taxPack.link.warning')} onDone={onClose} />
      ) : (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            make.mutate({ entity_id: entity.entity_id, year, cif, livemode, expires_in_hours: hours });
          }}
        >
          <Stack gap="sm">
            <Text size="sm">{t('donations.taxPack.link.intro', { entity: entity.name, year, cif })}</Text>
            <Text size="sm">
              {t(entity.signed_certificate ? 'donations.taxPack.link.replacesSigned' : 'donations.taxPack.link.storedOnSigning')}{' '}
              {t('donations.taxPack.link.replacesLink')}
            </Text>
            <Select
              label={t('donations.taxPack.link.lifetime')}
              data={LIFETIMES.map((h) => ({ value: String(h), label: t('donations.taxPack.link.days', { count: h / 24 }) }))}
              value={String(hours)}
              onChange={(value) => value && setHours(Number(value))}
              allowDeselect={false}
              w={200}
            />
            {make.error && <ErrorAlert error={make.error} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {common('common.cancel')}
              </Button>
              <Button type="submit" loading={make.isPending} leftSection={<IconLink size={16} aria-hidden />}>
                {t('donations.taxPack.link.make')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
