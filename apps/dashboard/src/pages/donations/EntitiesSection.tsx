import { Badge, Button, Checkbox, Group, Stack, Text, Title } from '@mantine/core';
import type { SocialEntity } from '@merma/schema';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm.tsx';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { WHOLE_BADGE } from './badges.ts';

type Props = { entities: SocialEntity[]; manage: boolean; onEdit: (entity: SocialEntity) => void };

/**
 * The social entities and food banks, by name: NIF, legal form, Ley 49/2002 status (what the tax
 * pack reads: an art. 2 entity's donation has a VAT base of zero; one in the regime lets the donor
 * deduct it), network and capacity. Archived ones are hidden unless asked for; their agreements stay.
 */
export function EntitiesSection({ entities, manage, onEdit }: Props) {
  const { t } = useTranslation('donations');
  const [showArchived, setShowArchived] = useState(false);
  const archivedCount = entities.filter((e) => e.archived).length;
  const rows = showArchived ? entities : entities.filter((e) => !e.archived);
  const columns: Column<SocialEntity>[] = [
    {
      key: 'name',
      header: t('donations.entities.columns.name'),
      render: (e) => (
        <Group gap="xs">
          <Text size="sm">{e.name}</Text>
          {e.archived && (
            <Badge styles={WHOLE_BADGE} variant="light" color="gray">
              {t('donations.entities.archived')}
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'nif', header: t('donations.entities.columns.nif'), render: (e) => e.nif },
    { key: 'form', header: t('donations.entities.columns.legalForm'), render: (e) => t(`donations.legalForms.${e.legal_form}`) },
    {
      key: 'ley49',
      header: t('donations.entities.columns.ley49'),
      render: (e) =>
        e.ley_49_2002.art2_entity || e.ley_49_2002.regime_opted_in ? (
          <Group gap={4}>
            {e.ley_49_2002.art2_entity && (
              <Badge styles={WHOLE_BADGE} variant="light" color="teal">
                {t('donations.entities.art2')}
              </Badge>
            )}
            {e.ley_49_2002.regime_opted_in && (
              <Badge styles={WHOLE_BADGE} variant="light" color="teal">
                {t('donations.entities.regime')}
              </Badge>
            )}
          </Group>
        ) : (
          <Text size="sm">{t('donations.entities.notLey49')}</Text>
        ),
    },
    { key: 'network', header: t('donations.entities.columns.network'), render: (e) => e.food_bank_network ?? <EmptyCell /> },
    {
      key: 'capacity',
      header: t('donations.entities.columns.capacity'),
      render: (e) =>
        e.capacity.cold_chain || e.capacity.vehicle ? (
          <Group gap={4}>
            {e.capacity.cold_chain && (
              <Badge styles={WHOLE_BADGE} variant="light" color="blue">
                {t('donations.entities.coldChain')}
              </Badge>
            )}
            {e.capacity.vehicle && (
              <Badge styles={WHOLE_BADGE} variant="light" color="blue">
                {t('donations.entities.vehicle')}
              </Badge>
            )}
          </Group>
        ) : (
          <EmptyCell />
        ),
    },
    {
      key: 'actions',
      header: t('donations.entities.columns.actions'),
      render: (e) => <EntityActions entity={e} manage={manage} onEdit={() => onEdit(e)} />,
    },
  ];
  return (
    <Stack gap="sm" component="section" aria-labelledby="entities-heading">
      <Title order={2} size="h3" id="entities-heading">
        {t('donations.entities.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('donations.entities.description')}
      </Text>
      {archivedCount > 0 && (
        <Checkbox
          label={t('donations.entities.showArchived', { count: archivedCount })}
          checked={showArchived}
          onChange={(event) => setShowArchived(event.currentTarget.checked)}
        />
      )}
      <DataTable
        caption={t('donations.entities.title')}
        columns={columns}
        rows={rows}
        rowKey={(e) => e.id}
        empty={t('donations.entities.empty')}
        minWidth={1000}
      />
      {!manage && (
        <Text size="sm" c="dimmed">
          {t('donations.readOnly')}
        </Text>
      )}
    </Stack>
  );
}

/** Its agreements (the list above, filtered), and for owners and admins: edit, archive or restore. */
function EntityActions({ entity, manage, onEdit }: { entity: SocialEntity; manage: boolean; onEdit: () => void }) {
  const { t } = useTranslation('donations');
  const confirm = useConfirm();
  const done = async (updated: SocialEntity) => {
    notifications.show({
      color: 'teal',
      message: t(updated.archived ? 'donations.entities.archivedDone' : 'donations.entities.restoredDone', { name: updated.name }),
    });
    await queryClient.invalidateQueries(trpc.donations.pathFilter());
  };
  const archive = useMutation(trpc.donations.archiveEntity.mutationOptions({ onSuccess: done }));
  const restore = useMutation(trpc.donations.restoreEntity.mutationOptions({ onSuccess: done }));
  return (
    <Group gap="xs" wrap="nowrap">
      <AnchorLink
        to="/donations"
        search={(prev) => ({ ...prev, entity: entity.id })}
        hash="agreements-heading"
        size="sm"
        aria-label={t('donations.entities.agreementsLabel', { name: entity.name })}
      >
        {t('donations.entities.agreements')}
      </AnchorLink>
      {manage && (
        <>
          <Button size="xs" variant="default" onClick={onEdit} aria-label={t('donations.entities.editLabel', { name: entity.name })}>
            {t('donations.entities.edit')}
          </Button>
          {entity.archived ? (
            <Button
              size="xs"
              variant="default"
              loading={restore.isPending}
              onClick={() => restore.mutate({ id: entity.id })}
              aria-label={t('donations.entities.restoreLabel', { name: entity.name })}
            >
              {t('donations.entities.restore')}
            </Button>
          ) : (
            <Button
              size="xs"
              variant="default"
              loading={archive.isPending}
              aria-label={t('donations.entities.archiveLabel', { name: entity.name })}
              onClick={() =>
                confirm({
                  title: t('donations.entities.archiveTitle', { name: entity.name }),
                  message: t('donations.entities.archiveMessage'),
                  confirmLabel: t('donations.entities.archive'),
                  danger: false,
                  onConfirm: () => archive.mutate({ id: entity.id }),
                })
              }
            >
              {t('donations.entities.archive')}
            </Button>
          )}
        </>
      )}
    </Group>
  );
}
