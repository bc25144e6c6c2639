import { Accordion, List, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CodeText } from './VendorFields.tsx';

/** The steps of each vendor's setup, in order: one message each (`integrations.vendors.guide.<vendor>.<step>`). */
const SQUARE_STEPS = ['mode', 'token', 'location', 'connect', 'subscription', 'signatureKey', 'products', 'check'] as const;
const ODOO_STEPS = ['connect', 'uomField', 'scrapRule', 'posRule', 'ordersRule', 'products', 'check'] as const;

/**
 * How to set each vendor up, step by step, folded until asked for. Both vendors send straight to
 * Merma (no relay): Square signs each notification, Odoo's URL carries its token.
 */
export function VendorSetupGuide() {
  const { t } = useTranslation('integrations');
  return (
    <Accordion variant="separated" chevronPosition="left" order={3}>
      <Accordion.Item value="square">
        <Accordion.Control>{t('integrations.vendors.guide.square.title')}</Accordion.Control>
        <Accordion.Panel>
          <List type="ordered" spacing="xs" size="sm">
            {SQUARE_STEPS.map((step) => (
              <List.Item key={step}>
                <CodeText text={t(`integrations.vendors.guide.square.${step}`)} />
              </List.Item>
            ))}
          </List>
        </Accordion.Panel>
      </Accordion.Item>
      <Accordion.Item value="odoo">
        <Accordion.Control>{t('integrations.vendors.guide.odoo.title')}</Accordion.Control>
        <Accordion.Panel>
          <List type="ordered" spacing="xs" size="sm">
            {ODOO_STEPS.map((step) => (
              <List.Item key={step}>
                <CodeText text={t(`integrations.vendors.guide.odoo.${step}`)} />
              </List.Item>
            ))}
          </List>
          <Text size="sm" c="dimmed" mt="sm">
            {t('integrations.vendors.guide.noRelay')}
          </Text>
        </Accordion.Panel>
      </Accordion.Item>
    </Accordion>
  );
}
