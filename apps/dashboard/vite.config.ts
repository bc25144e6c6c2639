import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type HtmlTagDescriptor, type Plugin } from 'vite';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
import { VitePWA } from 'vite-plugin-pwa';
import { PAGE_KEYS, SIGN_IN_KEYS } from './src/sign-in/words.ts';

/** Where `pnpm dev` sends `/trpc` calls: the Merma server started with `pnpm dev` at the repo root (PORT 3000). */
const apiTarget = 'http://127.0.0.1:3000';

/**
 * index.html's script (src/entry.ts) imports the app (src/main.tsx), after painting the page's
 * first frame when it has one; sign-in.html's (src/sign-in/entry.ts) the sign-in page the same
 * way. The page links the app's stylesheets, so that the frame is styled from the start, and, in index.html (no frame), a `modulepreload` for each of the app's scripts,
 * as Vite does for a page's static imports, so that they download beside the page. A page sent
 * with its first frame leaves those out (scripts/prerender.tsx): its scripts download once the
 * frame is painted, so that the first paint does not wait for 280 kB of them on a slow network.
 */
function linkTheApp(): Plugin {
  let base = '/';
  return {
    name: 'merma-link-the-app',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle, chunk }) {
        if (!bundle || !chunk || !/\/(index|sign-in)\.html$/.test(chunk.facadeModuleId ?? '')) return html;
        const scripts = new Set<string>();
        const styles = new Set<string>();
        const visit = (file: string) => {
          const imported = bundle[file];
          if (scripts.has(file) || imported?.type !== 'chunk') return;
          scripts.add(file);
          // A chunk's imports' styles before its own, as Vite orders a page's stylesheets.
          for (const next of imported.imports) visit(next);
          for (const css of imported.viteMetadata?.importedCss ?? []) styles.add(css);
        };
        for (const app of chunk.dynamicImports) visit(app);
        const tags: HtmlTagDescriptor[] = [
          // Marked: a page sent with its first frame leaves them out (scripts/prerender.tsx).
          ...[...scripts].map((file) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${file}`, 'data-app': true },
          })),
          ...[...styles].map((file) => ({ tag: 'link', attrs: { rel: 'stylesheet', crossorigin: true, href: `${base}${file}` } })),
        ];
        return { html, tags: tags.filter((tag) => !html.includes(String(tag.attrs?.href))).map((tag) => ({ ...tag, injectTo: 'head' })) };
      },
    },
  };
}

/**
 * `virtual:sign-in-messages`: the sign-in page's words, picked from the dashboard's message files
 * (src/i18n/es.json and en.json) by the keys src/sign-in/words.ts names, both languages. The page
 * would otherwise carry both files whole (25 kB gzipped) for a dozen sentences.
 */
function signInMessages(): Plugin {
  const ID = 'virtual:sign-in-messages';
  const RESOLVED = `\0${ID}`;
  const keys = [...Object.values(SIGN_IN_KEYS), ...PAGE_KEYS];
  const pick = (file: string) => {
    const whole = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const picked: Record<string, unknown> = {};
    for (const key of keys) {
      const path = key.split('.');
      let from: unknown = whole;
      let to = picked;
      for (const [i, part] of path.entries()) {
        from = (from as Record<string, unknown> | undefined)?.[part];
        if (from === undefined) throw new Error(`${file} has no ${key}`);
        if (i === path.length - 1) to[part] = from;
        else {
          to[part] ??= {};
          to = to[part] as Record<string, unknown>;
        }
      }
    }
    return picked;
  };
  return {
    name: 'merma-sign-in-messages',
    resolveId: (id) => (id === ID ? RESOLVED : null),
    load(id) {
      if (id !== RESOLVED) return null;
      const files = {
        es: fileURLToPath(new URL('./src/i18n/es.json', import.meta.url)),
        en: fileURLToPath(new URL('./src/i18n/en.json', import.meta.url)),
      };
      for (const file of Object.values(files)) this.addWatchFile(file);
      return `export default ${JSON.stringify({ es: pick(files.es), en: pick(files.en) })};`;
    },
  };
}

/**
 * The chunks that carry V8's compile hint (the `postBanner` below): the three groups every page's
 * first load runs. (Not `main`: Vite puts its list of a chunk's preloads above the banner, and V8
 * reads the hint only on the file's first line.)
 */
const EAGERLY_COMPILED = new Set(['core', 'i18n', 'app']);

export default defineConfig({
  // The server serves the built app under /dashboard/.
  base: '/dashboard/',
  plugins: [
    react(),
    linkTheApp(),
    signInMessages(),
    // Brotli and gzip copies of every text file beside it (index.js → index.js.br, index.js.gz), made
    // once at build time at the highest levels, which would cost too much per request. The server
    // (apps/server/src/http/dashboard.ts) sends the copy the browser accepts: the app's ~1 MB of
    // JavaScript and CSS crosses the network as ~250 kB.
    compression({
      include: /\.(js|mjs|css|html|svg|json)$/,
      threshold: 1024,
      skipIfLargerOrEqual: true,
      algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm('gzip', { level: 9 })],
      logLevel: 'silent',
    }),
    // The kitchen station's service worker (docs/decisions/0007-the-kitchen-station.md): the built
    // files precached, so the station (station.html) opens and records with the network down. It
    // controls the station's page only (registered with scope /dashboard/station by
    // src/station/pwa.ts); the dashboard's own pages always come from the network. The manifest is
    // a static file (public/station.webmanifest), linked from station.html alone, so the dashboard
    // itself is not offered for installation.
    VitePWA({
      injectRegister: false,
      manifest: false,
      filename: 'station-sw.js',
      workbox: {
        globPatterns: ['**/*.{js,css,html,png,svg,webmanifest}'],
        // The station's address (and its ?code= from a pairing QR) opens the precached page offline.
        navigateFallback: 'station.html',
        navigateFallbackAllowlist: [/^\/dashboard\/station\/?$/],
        cleanupOutdatedCaches: true,
        // A new build's worker takes over at once; the page reloads between two records (src/station/pwa.ts).
        skipWaiting: true,
        clientsClaim: true,
        // The station's routes (/station/…) are never cached: the outbox speaks to the server itself.
        runtimeCaching: [],
      },
    }),
  ],
  resolve: {
    // Read @merma/schema from its sources, as the server's dev mode does: no build needed first.
    conditions: ['@merma/source', ...defaultClientConditions],
  },
  server: {
    proxy: { '/trpc': { target: apiTarget, changeOrigin: false } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No source maps in the build: the server never serves `.map` files (a `.map` URL is a 404), and
    // maps would only ship the sources with the app. `DASHBOARD_SOURCEMAP=1` writes hidden ones (no
    // `sourceMappingURL` in the scripts) to see what a chunk is made of (README, Performance).
    sourcemap: process.env.DASHBOARD_SOURCEMAP ? 'hidden' : false,
    target: 'es2022',
    rolldownOptions: {
      // Four pages: the dashboard; the sign-in page a browser without a session opens, the kitchen
      // station and a social entity's signing page, each its own entry with none of the dashboard's pages.
      input: { index: 'index.html', station: 'station.html', sign: 'sign.html', 'sign-in': 'sign-in.html' },
      output: {
        // V8's explicit compile hint on the chunks whose code nearly all runs while a page loads:
        // React, i18next, the router, query cache and tRPC client.
        // V8 then compiles their functions on a background thread as the file streams in, instead
        // of each one on the page's thread the first time it is called. In traces of the records
        // page at a phone's 4× slowdown, the main thread's `V8.CompileCode` went from 476–627 ms to
        // 201–230 ms. Not on the other chunks: they are a page's or a dialog's, much of whose code
        // waits for a click. Added after minifying (`postBanner`), which would strip it, at the
        // top of the file, where V8 reads it.
        postBanner: (chunk) => (EAGERLY_COMPILED.has(chunk.name) ? '//# allFunctionsCalledOnLoad' : ''),
        // Fewer, larger files for the first load: a phone on HTTP/1.1 fetches six at a time, a round
        // trip each, and the sign-in page was 30 files, most under 1 kB (now about 10).
        codeSplitting: {
          // Small shared chunks (under 8 kB before minifying: a Mantine component, a helper of lib/)
          // are folded into the chunks that use them, at the cost of a few duplicated bytes.
          experimentalInlineCommonChunks: { maxSize: 8 * 1024 },
          groups: [
            // What every page runs, as three files: React and Mantine's hooks, which every page
            // runs, the sign-in page among them; i18next, which the app and the kitchen station run
            // (the sign-in page carries its few words itself); and the dashboard's router, query
            // cache, tRPC client and forms, which the station and the sign-in page do without.
            {
              name: 'core',
              test: /node_modules[\\/](react|react-dom|scheduler|use-sync-external-store|klona|clsx|@mantine[\\/]hooks)[\\/]/,
              priority: 2,
            },
            {
              name: 'i18n',
              test: /node_modules[\\/](i18next|react-i18next)[\\/]/,
              priority: 2,
            },
            {
              name: 'app',
              test: /node_modules[\\/](@tanstack|@trpc|@mantine[\\/]form)[\\/]/,
              priority: 2,
            },
            // The Mantine components every page's first render uses (layout, text, buttons, inputs and
            // their transitions) as one file: left to the bundler they came in four or five small
            // files, one per set of pages that import each (about 1 kB more, compressed apart).
            {
              name: 'mantine-base',
              test: /node_modules[\\/]@mantine[\\/]core[\\/]esm[\\/]components[\\/](Text|Button|Transition|Input|Group|Alert|Stack|Title)[\\/]/,
              priority: 1,
            },
            // Floating UI positions dropdowns (Select, Menu, Popover, Tooltip): a file of its own,
            // so that a page showing none (a phone's overview) does not download it with a module
            // it shares with them (Mantine's text direction, which AppShell reads, landed beside
            // it). Its small DOM helpers (`@floating-ui/utils`), which ScrollArea uses too, apart.
            {
              name: 'floating-ui',
              test: /node_modules[\\/]@floating-ui[\\/]/,
              priority: 1,
            },
            {
              name: 'floating-ui-utils',
              test: /node_modules[\\/]@floating-ui[\\/]utils[\\/]/,
              priority: 2,
            },
          ],
        },
      },
    },
  },
});
