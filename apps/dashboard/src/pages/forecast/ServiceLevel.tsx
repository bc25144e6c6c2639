import { Button, Group, Stack, Text } from '@mantine/core';
import { DEFAULT_SERVICE_LEVEL, MAX_SERVICE_LEVEL, MIN_SERVICE_LEVEL } from '@merma/schema';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DecimalInput, decimalError, decimalValue } from '../../components/DecimalInput.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';

type Scope = { establishment_id: string; livemode: boolean };

/** The whole percents the server takes. */
const PERCENTS = { min: Math.round(MIN_SERVICE_LEVEL * 100), max: Math.round(MAX_SERVICE_LEVEL * 100), integer: true };

/**
 * The production advice's service level (`/api/v1/predict/settings`), under the production
 * table's title: the share of days the advice covers for a product without prices. Everyone reads
 * it; owners, admins and developers (who set the opening calendar) change it, in whole percents,
 * or put the default back. The advice is reloaded after a change.
 */
export function ServiceLevel({ scope }: { scope: Scope }) {
  const { t } = useTranslation();
  const format = useFormat();
  const { me } = useScope();
  const { data } = useQuery(trpc.predict.settings.queryOptions(scope));
  const manage = can.manageShifts(me.role);
  // The percent as typed (lib/decimal.ts reads it); null while not editing.
  const [editing, setEditing] = useState<string | null>(null);
  const save = useMutation(
    trpc.predict.updateSettings.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (settings) => {
        setEditing(null);
        notifications.show({
          color: 'teal',
          message: t('forecast.serviceLevel.saved', { percent: format.percent(settings.service_level) }),
        });
        await Promise.all([
          queryClient.invalidateQueries(trpc.predict.settings.pathFilter()),
          queryClient.invalidateQueries(trpc.predict.demand.pathFilter()),
        ]);
      },
    }),
  );
  if (!data) return null;
  const level = format.percent(data.service_level);
  const problem = editing === null ? null : decimalError(t, editing, format.language, PERCENTS);
  return (
    <Stack gap={6} data-testid="service-level">
      <Group gap="xs" wrap="wrap">
        <Text size="sm">
          {t(data.is_default ? 'forecast.serviceLevel.currentDefault' : 'forecast.serviceLevel.current', { percent: level })}
        </Text>
        {manage && editing === null && (
          <Button size="compact-sm" variant="subtle" onClick={() => setEditing(String(Math.round(data.service_level * 100)))}>
            {t('forecast.serviceLevel.change')}
          </Button>
        )}
      </Group>
      {manage && editing !== null && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const percent = decimalValue(editing, format.language);
            if (!problem && percent !== null) save.mutate({ ...scope, settings: { service_level: percent / 100 } });
          }}
        >
          <Group gap="sm" align="flex-end" wrap="wrap">
            <DecimalInput
              label={t('forecast.serviceLevel.label')}
              description={t('forecast.serviceLevel.hint')}
              value={editing}
              onChange={(e) => setEditing(e.currentTarget.value)}
              error={problem}
              rightSection="%"
              w={220}
            />
            <Button type="submit" size="sm" loading={save.isPending} disabled={problem !== null}>
              {t('common.save')}
            </Button>
            {!data.is_default && (
              <Button
                size="sm"
                variant="default"
                loading={save.isPending}
                onClick={() => save.mutate({ ...scope, settings: { service_level: null } })}
              >
                {t('forecast.serviceLevel.reset', { percent: format.percent(DEFAULT_SERVICE_LEVEL) })}
              </Button>
            )}
            <Button size="sm" variant="subtle" onClick={() => setEditing(null)}>
              {t('common.cancel')}
            </Button>
          </Group>
        </form>
      )}
      {save.error && <ErrorAlert error={save.error} />}
    </Stack>
  );
}
