import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The browser tab's title for a page: `Registros · Merma`, in the chosen language, so that tabs,
 * history and bookmarks say which page they are. Set by `Page` and `AuthLayout` from the page's
 * `<h1>`; back to the bare name when the page goes.
 */
export function useDocumentTitle(title: string | undefined) {
  const { t } = useTranslation();
  const app = t('app.name');
  useEffect(() => {
    document.title = title ? t('app.pageTitle', { page: title, app }) : app;
    return () => {
      document.title = app;
    };
  }, [title, app, t]);
}
