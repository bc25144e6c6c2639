import { Alert, Badge, Box, Button, Group, Modal, Text } from '@mantine/core';
import { IconCloudOff, IconCloudUpload, IconHeartHandshake, IconWifi } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import classes from '../station.module.css';
import type { StationState } from '../useStation.ts';
import { LanguageControl } from './LanguageControl.tsx';
import { bigClose } from './targets.ts';

/** `onDonate`: the Donate button, on the recording screen (not on the donation screen itself). */
export function StationHeader({ station, onDonate }: { station: StationState; onDonate?: () => void }) {
  const { t } = useTranslation('station');
  const [confirming, setConfirming] = useState(false);
  const identity = station.pairing?.identity;
  const waiting = station.status.waiting;
  return (
    <>
      <Group component="header" className={classes.header} justify="space-between" wrap="wrap" gap="xs">
        <Box>
          <Text fw={800} size="xl" component="h1" m={0} lh={1.2}>
            {identity?.device.name}
          </Text>
          <Text size="md" c="dimmed">
            {identity?.establishment.name}
            {identity?.mode === 'test' ? ` · ${t('station.header.testMode')}` : ''}
          </Text>
        </Box>
        <Group gap="xs">
          <Badge
            size="xl"
            h={48}
            tt="none"
            color={station.online ? 'teal' : 'orange'}
            variant="light"
            leftSection={station.online ? <IconWifi size={20} aria-hidden /> : <IconCloudOff size={20} aria-hidden />}
          >
            {station.online ? t('station.header.online') : t('station.header.offline')}
          </Badge>
          <Badge
            size="xl"
            h={48}
            tt="none"
            color={waiting ? 'orange' : 'gray'}
            variant="light"
            leftSection={<IconCloudUpload size={20} aria-hidden />}
            role="status"
            data-testid="waiting"
          >
            {waiting ? t('station.header.waiting', { count: waiting }) : t('station.header.allSent')}
          </Badge>
          {onDonate && (
            <Button color="teal.9" size="md" h={48} leftSection={<IconHeartHandshake size={22} aria-hidden />} onClick={onDonate}>
              {t('station.donate.open')}
            </Button>
          )}
          <LanguageControl />
          <Button variant="subtle" color="gray" size="md" h={48} px="xs" onClick={() => setConfirming(true)}>
            {t('station.header.unpair')}
          </Button>
        </Group>
        <Modal
          opened={confirming}
          onClose={() => setConfirming(false)}
          title={t('station.header.unpair')}
          centered
          closeButtonProps={bigClose(t('station.close'))}
        >
          <Text mb="lg">{t('station.header.unpairConfirm')}</Text>
          <Group justify="flex-end">
            <Button variant="default" size="lg" onClick={() => setConfirming(false)}>
              {t('station.cancel')}
            </Button>
            <Button color="red" size="lg" onClick={() => void station.unpair().then(() => setConfirming(false))}>
              {t('station.header.unpair')}
            </Button>
          </Group>
        </Modal>
      </Group>
      {!station.online && (
        <Alert color="orange" variant="light" radius={0} py="xs" icon={<IconCloudOff size={20} aria-hidden />}>
          {t('station.header.offlineBanner')}
        </Alert>
      )}
    </>
  );
}
