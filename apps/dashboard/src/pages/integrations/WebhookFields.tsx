import { Badge, Checkbox, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { EVENT_TYPES, type EventType } from '@merma/schema';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';

export type WebhookValues = { url: string; events: EventType[]; description: string };

// The server's rule (http or https; it refuses http in production) with a readable message here.
const WebhookUrl = z.url({ protocol: /^https?$/ }).max(2048);

export function webhookRules(t: TFunction) {
  return {
    url: (value: string) => (WebhookUrl.safeParse(value.trim()).success ? null : t('validation.url')),
    events: (value: EventType[]) => (value.length > 0 ? null : t('validation.events')),
    description: (value: string) => (value.length <= 200 ? null : t('validation.tooLong', { max: 200 })),
  };
}

/** URL, events and description of an endpoint: the same fields to add one and to edit it. */
export function WebhookFields({ form, readOnly = false }: { form: UseFormReturnType<WebhookValues>; readOnly?: boolean }) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  return (
    <Stack gap="md">
      <TextInput
        label={t('integrations.fields.url')}
        description={t('integrations.fields.urlHint')}
        placeholder={t('integrations.fields.urlPlaceholder')}
        type="url"
        required
        readOnly={readOnly}
        data-autofocus
        {...form.getInputProps('url')}
      />
      <Checkbox.Group label={t('integrations.fields.events')} required readOnly={readOnly} {...form.getInputProps('events')}>
        <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs" spacing="xs">
          {EVENT_TYPES.map((event) => (
            <Checkbox key={event} value={event} label={event} description={common(`events.${event}`)} disabled={readOnly} />
          ))}
        </SimpleGrid>
      </Checkbox.Group>
      <Textarea
        label={t('integrations.fields.description')}
        autosize
        minRows={2}
        maxLength={200}
        readOnly={readOnly}
        {...form.getInputProps('description')}
      />
    </Stack>
  );
}

export function WebhookStatusBadge({ status }: { status: 'active' | 'deactivated' }) {
  const { t } = useTranslation('integrations');
  return (
    <Badge miw="max-content" color={status === 'active' ? 'teal' : 'red'} variant="light">
      {t(`integrations.status.${status}`)}
    </Badge>
  );
}

export function DeliveryStatusBadge({ status }: { status: 'pending' | 'succeeded' | 'failed' }) {
  const { t } = useTranslation('integrations');
  const color = status === 'succeeded' ? 'teal' : status === 'failed' ? 'red' : 'blue';
  return (
    <Badge miw="max-content" color={color} variant="light">
      {t(`integrations.deliveries.status.${status}`)}
    </Badge>
  );
}
