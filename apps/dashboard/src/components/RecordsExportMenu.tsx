import { Button, Menu } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/**
 * "Export CSV" with its two forms: for a spreadsheet set to Spanish, and standard
 * (apps/server/src/modules/records/export.ts). `href` gives the download's URL for a form.
 */
export function RecordsExportMenu({ href, disabled }: { href: (dialect: 'es' | 'plain') => string; disabled: boolean }) {
  const { t } = useTranslation();
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <Button variant="default" leftSection={<IconDownload size={16} aria-hidden />} disabled={disabled}>
          {t('records.export.button')}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component="a" href={href('es')} download>
          {t('records.export.es')}
        </Menu.Item>
        <Menu.Item component="a" href={href('plain')} download>
          {t('records.export.plain')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
