import { Button, Center, Code, Group, Loader, Modal, Stack, Text, Title } from '@mantine/core';
import type { DonationLine } from '@merma/schema';
import type { DashboardDonation } from '@merma/schema/dashboard';
import { IconDownload, IconQrcode } from '@tabler/icons-react';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { AnswerForm } from './AnswerForm.tsx';
import { DonationLines } from './DonationLines.tsx';
import { DonationStatusBadge, WaitingBadge } from './DonationsSection.tsx';
import { RerouteForm } from './RerouteForm.tsx';
import { SigningLink } from './SigningLink.tsx';

type Scope = { establishment_id: string; livemode: boolean };
type Props = { id: string; scope: Scope; timezone: string; write: boolean; onClose: () => void };

/** What the modal shows: the donation, or one of its steps in its place. */
type View =
  | { kind: 'detail' }
  | { kind: 'answer' }
  | { kind: 'reroute'; line: DonationLine }
  | { kind: 'link'; url: string; expires_at: string };

/** Where the signed note downloads (http/surfaces/dashboard-documents.ts on the server): a plain route, under the session. */
export const noteUrl = (id: string, scope: Scope) =>
  `/files/donations/${id}/note.pdf?establishment_id=${scope.establishment_id}&mode=${scope.livemode ? 'live' : 'test'}`;

/**
 * One donation (`?donation=` in the URL): its lines and their states, the steps valid in its state
 * for the members who may take them — offered: send it for signature (the link, its QR code and
 * expiry, shown once) or record the entity's answer given on paper; accepted: collected; collected:
 * received; a refused line: send it elsewhere — and, once signed, the note's SHA-256 and download.
 */
export function DonationModal({ id, scope, timezone, write, onClose }: Props) {
  const { t } = useTranslation('donations');
  const [view, setView] = useState<View>({ kind: 'detail' });
  const query = useQuery(trpc.donations.get.queryOptions({ ...scope, id }));
  const donation = query.data;
  const entity = donation?.entity_name ?? '';
  const title =
    view.kind === 'link'
      ? t('donations.link.title', { entity })
      : view.kind === 'answer'
        ? t('donations.answerForm.title', { entity })
        : view.kind === 'reroute'
          ? t('donations.rerouteForm.title', { n: view.line.position })
          : t('donations.detail.title', { entity });
  const back = () => setView({ kind: 'detail' });
  return (
    <Modal
      opened
      onClose={onClose}
      title={title}
      size="xl"
      // The link is shown once: only its own button leaves it.
      {...(view.kind === 'link' ? { closeOnClickOutside: false, closeOnEscape: false, withCloseButton: false } : {})}
    >
      {query.isError ? (
        <ErrorAlert error={query.error} />
      ) : !donation ? (
        <Center py="xl">
          <Loader aria-label={t('donations.detail.loading')} />
        </Center>
      ) : view.kind === 'link' ? (
        <SigningLink link={view} warning={t('donations.link.warning')} timezone={timezone} onDone={back} />
      ) : view.kind === 'answer' ? (
        <AnswerForm donation={donation} scope={scope} onDone={back} />
      ) : view.kind === 'reroute' ? (
        <RerouteStep donation={donation} line={view.line} scope={scope} onDone={back} />
      ) : (
        <Detail donation={donation} scope={scope} timezone={timezone} write={write} onView={setView} />
      )}
    </Modal>
  );
}

function RerouteStep({
  donation,
  line,
  scope,
  onDone,
}: {
  donation: DashboardDonation;
  line: DonationLine;
  scope: Scope;
  onDone: () => void;
}) {
  const { data: catalog } = useSuspenseQuery(trpc.catalog.get.queryOptions());
  return <RerouteForm donation={donation} line={line} destinations={catalog.destinations} scope={scope} onDone={onDone} />;
}

type DetailProps = { donation: DashboardDonation; scope: Scope; timezone: string; write: boolean; onView: (view: View) => void };

function Detail({ donation: d, scope, timezone, write, onView }: DetailProps) {
  const { t } = useTranslation('donations');
  const format = useFormat(timezone);
  const { data: catalog } = useSuspenseQuery(trpc.catalog.get.queryOptions());
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.donations.list.pathFilter()),
      queryClient.invalidateQueries(trpc.donations.get.pathFilter()),
    ]);
  const link = useMutation({
    ...trpc.donations.createLink.mutationOptions({
      onSuccess: async (made) => {
        onView({ kind: 'link', ...made });
        await queryClient.invalidateQueries(trpc.donations.get.pathFilter());
      },
    }),
    meta: { inlineError: true },
  });
  const advance = (to: 'collected' | 'received') => ({
    ...(to === 'collected' ? trpc.donations.collect : trpc.donations.receive).mutationOptions({
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t(to === 'collected' ? 'donations.detail.collected' : 'donations.detail.received') });
        await refresh();
      },
    }),
    meta: { inlineError: true },
  });
  const collect = useMutation(advance('collected'));
  const receive = useMutation(advance('received'));
  const error = link.error ?? collect.error ?? receive.error;
  const when = [
    t('donations.detail.offeredAt', { date: format.dateTime(d.offered_at) }),
    d.decided_at && t('donations.detail.decidedAt', { date: format.dateTime(d.decided_at) }),
    d.collected_at && t('donations.detail.collectedAt', { date: format.dateTime(d.collected_at) }),
    d.received_at && t('donations.detail.receivedAt', { date: format.dateTime(d.received_at) }),
  ].filter(Boolean);

  return (
    <Stack gap="md">
      <Group gap="xs" wrap="wrap">
        <DonationStatusBadge status={d.status} />
        {d.awaiting_reroute > 0 && <WaitingBadge count={d.awaiting_reroute} />}
      </Group>
      <Stack gap={2}>
        {when.map((line) => (
          <Text key={line as string} size="sm">
            {line}
          </Text>
        ))}
        <Text size="sm" c="dimmed">
          {t('donations.detail.totals', { kg: format.kgPrecise(d.totals.net_kg), accepted: format.kgPrecise(d.totals.accepted_kg) })}
        </Text>
        {d.notes && (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {d.notes}
          </Text>
        )}
      </Stack>
      <DonationLines
        lines={d.lines}
        destinations={catalog.destinations}
        timezone={timezone}
        onReroute={write ? (line) => onView({ kind: 'reroute', line }) : null}
      />
      {error ? <ErrorAlert error={error} /> : null}
      {write && (d.status === 'offered' || d.status === 'accepted' || d.status === 'collected') && (
        <Stack gap="xs">
          <Title order={3} size="h5">
            {t('donations.detail.actions')}
          </Title>
          <Group gap="xs" wrap="wrap">
            {d.status === 'offered' && (
              <>
                <Button
                  leftSection={<IconQrcode size={16} aria-hidden />}
                  loading={link.isPending}
                  onClick={() => link.mutate({ ...scope, id: d.id })}
                >
                  {t(d.link ? 'donations.detail.newLink' : 'donations.detail.sendForSignature')}
                </Button>
                <Button variant="default" onClick={() => onView({ kind: 'answer' })}>
                  {t('donations.detail.recordAnswer')}
                </Button>
              </>
            )}
            {d.status === 'accepted' && (
              <Button loading={collect.isPending} onClick={() => collect.mutate({ ...scope, id: d.id })}>
                {t('donations.detail.collect')}
              </Button>
            )}
            {d.status === 'collected' && (
              <Button loading={receive.isPending} onClick={() => receive.mutate({ ...scope, id: d.id })}>
                {t('donations.detail.receive')}
              </Button>
            )}
          </Group>
        </Stack>
      )}
      <Signature donation={d} scope={scope} timezone={timezone} />
    </Stack>
  );
}

/** The signed handover note (who signed, when, its SHA-256 and the PDF), or where the signing link stands. */
function Signature({ donation: d, scope, timezone }: { donation: DashboardDonation; scope: Scope; timezone: string }) {
  const { t } = useTranslation('donations');
  const format = useFormat(timezone);
  const now = Date.now();
  return (
    <Stack gap="xs" data-testid="donation-signature">
      <Title order={3} size="h5">
        {t('donations.detail.signature')}
      </Title>
      {d.note ? (
        <>
          <Text size="sm">{t('donations.detail.signedBy', { name: d.note.signer_name, date: format.dateTime(d.note.signed_at) })}</Text>
          <Text size="xs" fw={600}>
            {t('donations.detail.sha256')}
          </Text>
          <Code block data-testid="note-sha256" style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>
            {d.note.sha256}
          </Code>
          <Group>
            <Button
              component="a"
              href={noteUrl(d.id, scope)}
              download
              variant="default"
              leftSection={<IconDownload size={16} aria-hidden />}
            >
              {t('donations.detail.download')}
            </Button>
          </Group>
        </>
      ) : (
        <Text size="sm" c="dimmed">
          {d.link
            ? new Date(d.link.expires_at).getTime() > now
              ? t('donations.detail.linkMade', { created: format.dateTime(d.link.created_at), expires: format.dateTime(d.link.expires_at) })
              : t('donations.detail.linkExpired', { expires: format.dateTime(d.link.expires_at) })
            : t('donations.detail.notSigned')}
        </Text>
      )}
    </Stack>
  );
}
