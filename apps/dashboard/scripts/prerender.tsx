// After `vite build`: each page's first frame (src/frame/Frame.tsx) written into a copy of the built
// index.html (the sign-in page's into sign-in.html, the page of its own a browser without a session
// gets: src/sign-in/page.tsx), per language: dist/frames/<page>.<language>.html, with their .br and .gz copies as the
// build makes for every file. The server sends the one for the address, the session and the
// language (apps/server/src/http/dashboard-app.ts); index.html stays the page for every other address.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { MantineProvider } from '@mantine/core';
import i18next from 'i18next';
import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { FRAMED_PAGES, SignedInFrame, SignInFrame } from '../src/frame/Frame.tsx';
import auditEn from '../src/i18n/audit.en.json' with { type: 'json' };
import auditEs from '../src/i18n/audit.es.json' with { type: 'json' };
import donationsEn from '../src/i18n/donations.en.json' with { type: 'json' };
import donationsEs from '../src/i18n/donations.es.json' with { type: 'json' };
import en from '../src/i18n/en.json' with { type: 'json' };
import es from '../src/i18n/es.json' with { type: 'json' };
import integrationsEn from '../src/i18n/integrations.en.json' with { type: 'json' };
import integrationsEs from '../src/i18n/integrations.es.json' with { type: 'json' };
import planEn from '../src/i18n/plan.en.json' with { type: 'json' };
import planEs from '../src/i18n/plan.es.json' with { type: 'json' };
import { buildTheme, cssVariablesResolver } from '../src/theme.ts';

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const MESSAGES = {
  es: { translation: es, plan: planEs, donations: donationsEs, audit: auditEs, integrations: integrationsEs },
  en: { translation: en, plan: planEn, donations: donationsEn, audit: auditEn, integrations: integrationsEn },
} as const;
const ROOT = '<div id="root"></div>';
/** The id of the empty element that closes a frame: rendering waits for it (below). */
const FRAME_END = 'first-frame-end';

const built = (file: string) => {
  const html = readFileSync(join(DIST, file), 'utf8');
  if (!html.includes(ROOT)) throw new Error(`dist/${file} has no ${ROOT}`);
  return html;
};
const index = built('index.html');
const signIn = built('sign-in.html');
rmSync(join(DIST, 'frames'), { recursive: true, force: true });
mkdirSync(join(DIST, 'frames'));

for (const language of ['es', 'en'] as const) {
  const i18n = i18next.createInstance();
  await i18n.use(initReactI18next).init({
    lng: language,
    resources: { [language]: MESSAGES[language] },
    ns: Object.keys(MESSAGES[language]),
    defaultNS: 'translation',
    nsSeparator: false,
    interpolation: { escapeValue: false },
  });
  const t = i18n.t.bind(i18n);
  const page = (name: string, title: string, frame: ReactNode, template = index) => {
    const markup = renderToStaticMarkup(
      <I18nextProvider i18n={i18n}>
        <MantineProvider
          theme={buildTheme(t)}
          defaultColorScheme="light"
          forceColorScheme="light"
          cssVariablesResolver={cssVariablesResolver}
        >
          {frame}
        </MantineProvider>
      </I18nextProvider>,
    );
    const html = template
      // The app's scripts are fetched by src/entry.ts once this frame is painted (vite.config.ts).
      .replace(/\s*<link rel="modulepreload"[^>]* data-app>/g, '')
      .replace('<html lang="es">', `<html lang="${language}" data-mantine-color-scheme="light">`)
      .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(t('app.pageTitle', { page: title, app: t('app.name') }))}</title>`)
      // The frame is painted whole: a slow phone's parser yields part way through the page, and
      // the browser painted the header alone, then the rest as the parser went on (its largest
      // text a later paint than the first). Chromium holds rendering until the element this link
      // names is in the document (the frame's last); browsers without `rel=expect` ignore it.
      .replace('</head>', `  <link rel="expect" href="#${FRAME_END}" blocking="render">\n  </head>`)
      // An empty marker that tells the frame from the app, which replaces it (tests wait for that).
      .replace(ROOT, `<div id="root"><template data-first-frame></template>${markup}<template id="${FRAME_END}"></template></div>`);
    const file = join(DIST, 'frames', `${name}.${language}.html`);
    writeFileSync(file, html);
    writeFileSync(`${file}.br`, brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    writeFileSync(`${file}.gz`, gzipSync(html, { level: 9 }));
  };
  page('sign-in', t('auth.signIn.title'), <SignInFrame />, signIn);
  for (const framed of FRAMED_PAGES) page(framed.path, i18n.t(framed.title as never, { ns: framed.ns }), <SignedInFrame page={framed} />);
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
