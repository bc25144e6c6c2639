// pnpm bench:web: the customers' dashboard as a browser on a phone and on a desktop sees it.
// Starts the real server with the built dashboard (apps/dashboard/dist) on a fresh PostgreSQL
// database, makes the demo organisation (`merma-admin quickstart`), adds two months of records
// through the API, signs in with the demo owner's one-time link, then runs Lighthouse (mobile and
// desktop presets, performance only) on the sign-in, overview, records and forecast pages, the
// signed-in ones with the session's cookies in the browser's cookie jar, as a signed-in browser
// holds them (the pages signed out run with an empty jar). Prints, per page and preset: the
// performance score, LCP, CLS, TBT and the bytes transferred (all, and scripts), and a MISSED line
// for each goal not met. Not part of `pnpm test`: these are timings on this machine.
// Needs PostgreSQL on 127.0.0.1:5432 (BENCH_DATABASE_URL to change) and Chromium (CHROMIUM_PATH,
// /usr/bin/chromium by default); creates and drops merma_bench_web. BENCH_WEB_RUNS=n runs each page
// n times and keeps the median score (1 by default).
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import pg from 'pg';
import { freePort, stopAndDrop, waitFor } from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'merma_bench_web';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RUNS = Math.max(1, Number(process.env.BENCH_WEB_RUNS ?? 1));
const DESTINO = '6ccf7d29-f6d9-403d-a9b0-2f907f15477b'; // a destination of the seeded catalogue
const GOALS = { mobileScore: 90, lcpMs: 2500, cls: 0.1 };

const dbUrl = (() => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
})();

const children = [];
/** Lighthouse's benchmarkIndex of every run: how fast this machine's CPU was during the bench. */
const hostIndexes = [];
/**
 * Runs whose first frame the browser presented late: in the full-speed load Lighthouse simulates
 * from, the page's first paint more than a second after navigation (it is 0.15–0.3 s otherwise).
 * In traces of such runs the page had been laid out by 0.25 s and its main thread then sat idle:
 * no animation frame came for a second (two, now and then), whatever the build, the first run
 * after the browser's launch most often. The simulation starts from that load, so such a run's LCP
 * reads 3.7–4.3 s instead of 1.1–2.0 s. Counted and printed, never dropped: the median of three
 * runs is what absorbs one.
 *
 * What holds the frame (traces with the `viz`, `cc` and `benchmark` categories): Chromium's display
 * compositor stops sending the page's renderer begin-frames — `SendBeginFrameDecision` with reason
 * `ThrottleUndrawnFrames`, every 16.7 ms from about 0.22 s until the next whole second — and
 * lets one through per second. Viz does that to a client more than three of whose submitted
 * frames it has not drawn (`CompositorFrameSinkSupport::ShouldSendBeginFrame`). Here those are
 * frames the renderer's compositor drew of the tab's previous tree (overlay-scrollbar animation
 * under the phone emulation) while the new page's first commit waited for its render-blocking
 * stylesheet; in runs on time the same decisions never say "throttle". So it is the browser's;
 * a shorter render-blocking wait should make it rarer, not impossible.
 */
const LATE_FRAME_MS = 1000;
const lateFrames = { late: 0, runs: 0 };

function startServer(port) {
  const child = spawn(process.execPath, ['apps/server/dist/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ENABLED: 'false',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  return child;
}

/** The demo organisation, its establishment, a test key and a one-time sign-in link. */
function quickstart(port) {
  const out = execFileSync(process.execPath, ['apps/server/bin/merma-admin.mjs', 'quickstart'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: dbUrl, NODE_ENV: 'development', PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

/** Two months of records, a few a day, so that the overview, records and forecast pages have data. */
async function seedRecords(base, demo) {
  const categories = ['bakery', 'dairy', 'meat', 'fish', 'fruit_veg'];
  const now = Date.now();
  const records = Array.from({ length: 480 }, (_, i) => ({
    food_category: categories[i % categories.length],
    weight_kg: 0.5 + (i % 9) / 4,
    destino_id: DESTINO,
    product_name: `Producto ${i % 40}`,
    occurred_at: new Date(now - (i * 3 + 1) * 3_600_000).toISOString(),
  }));
  const res = await fetch(`${base}/api/v1/records/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.key.key}`, 'x-establishment': demo.establishment.id },
    body: JSON.stringify({ records }),
  });
  if (!res.ok) throw new Error(`seeding records: ${res.status} ${await res.text()}`);
}

/** The session's cookies, as the browser would send them after following the sign-in link. */
async function signIn(base, link) {
  const token = new URL(link).searchParams.get('token');
  const res = await fetch(`${base}/trpc/accounts.signInWithLink`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', origin: base },
    body: JSON.stringify({ token }),
  });
  if (!res.ok) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Puts `cookie` (a Cookie header's pairs) in the browser's cookie jar for `base`, or empties the jar
 * when it is undefined, through the DevTools protocol of the browser Lighthouse drives (Node's own
 * WebSocket). The jar, not an extra request header: the cookies the dashboard writes itself (its
 * language) go into the jar, and a request's Cookie header then comes from the jar alone, so a
 * session given as an extra header was lost from the second run of a page on (the server sent the
 * sign-in page's frame, and the figures were a signed-out first paint's).
 */
async function setJar(port, base, cookie) {
  const { webSocketDebuggerUrl } = await (await fetch(`http://127.0.0.1:${port}/json/version`)).json();
  const socket = new WebSocket(webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let id = 0;
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      socket.addEventListener('message', function answer(event) {
        const message = JSON.parse(String(event.data));
        if (message.id !== mine) return;
        socket.removeEventListener('message', answer);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      });
      socket.send(JSON.stringify({ id: mine, method, params }));
    });
  try {
    await send('Storage.clearCookies');
    if (cookie) {
      const cookies = cookie.split('; ').map((pair) => {
        const at = pair.indexOf('=');
        return { name: pair.slice(0, at), value: pair.slice(at + 1), url: base, path: '/' };
      });
      await send('Storage.setCookies', { cookies });
    }
  } finally {
    socket.close();
  }
}

async function measure(port, url, preset, cookie) {
  const flags = { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] };
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    await setJar(port, new URL(url).origin, cookie);
    const result = await lighthouse(url, flags, preset === 'desktop' ? desktopConfig : undefined);
    const lhr = result.lhr;
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const requests = lhr.audits['network-requests']?.details?.items ?? [];
    runs.push({
      score: Math.round((lhr.categories.performance.score ?? 0) * 100),
      lcp: lhr.audits['largest-contentful-paint'].numericValue,
      cls: lhr.audits['cumulative-layout-shift'].numericValue,
      tbt: lhr.audits['total-blocking-time'].numericValue,
      bytes: lhr.audits['total-byte-weight'].numericValue,
      jsBytes: requests.filter((r) => r.resourceType === 'Script').reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
      scripts: requests.filter((r) => r.resourceType === 'Script').length,
      finalUrl: lhr.finalDisplayedUrl,
      // Lighthouse's measure of this machine's CPU in this run (its "CPU/Memory Power"): the 4×
      // slowdown is meant for a host of 1,000 and more, and Lighthouse warns below that.
      benchmarkIndex: lhr.environment.benchmarkIndex,
      observedFcp: lhr.audits.metrics?.details?.items?.[0]?.observedFirstContentfulPaint,
      details: process.env.BENCH_WEB_DETAILS ? details(lhr) : undefined,
    });
  }
  hostIndexes.push(...runs.map((r) => r.benchmarkIndex));
  lateFrames.runs += runs.length;
  const late = runs.filter((r) => r.observedFcp > LATE_FRAME_MS).length;
  lateFrames.late += late;
  const scores = runs.map((r) => r.score);
  return { ...runs.find((r) => r.score === median(scores)), late, of: runs.length };
}

/** Where the main thread's time went (BENCH_WEB_DETAILS=1): by kind of work, and by script. */
function details(lhr) {
  const items = (id) => lhr.audits[id]?.details?.items ?? [];
  const work = items('mainthread-work-breakdown').map((i) => `${i.groupLabel ?? i.group} ${Math.round(i.duration)} ms`);
  const scripts = items('bootup-time')
    .slice(0, 6)
    .map((i) => `${String(i.url).split('/').pop()} ${Math.round(i.total)} ms (script ${Math.round(i.scripting)} ms)`);
  // Every long task, in the order they ran (TBT is the sum of their time over 50 ms after FCP).
  const tasks = items('long-tasks')
    .toSorted((a, b) => a.startTime - b.startTime)
    .map((i) => `${String(i.url).split('/').pop() || i.url} @${Math.round(i.startTime)} ms: ${Math.round(i.duration)} ms`);
  // Lighthouse 13 names the LCP element in its LCP breakdown insight (older versions: an audit of its own).
  const lcpDetails = lhr.audits['lcp-breakdown-insight']?.details ?? lhr.audits['largest-contentful-paint-element']?.details ?? {};
  const lcpNode = JSON.stringify(lcpDetails).match(/"snippet":"((?:[^"\\]|\\.)*)"/);
  // Lighthouse loads the page at full speed and simulates the phone's network and CPU from that
  // load's dependencies: the observed times say what the simulation started from.
  const m = items('metrics')[0] ?? {};
  const ms = (v) => (v === undefined ? '?' : `${Math.round(v)} ms`);
  const lines = [
    `  LCP element: ${lcpNode ? lcpNode[1].slice(0, 160) : 'unknown'}`,
    `  FCP ${ms(m.firstContentfulPaint)}, LCP ${ms(m.largestContentfulPaint)}, simulated; observed FCP ${ms(m.observedFirstContentfulPaint)}, LCP ${ms(m.observedLargestContentfulPaint)}`,
    `  main thread: ${work.join(', ')}`,
    `  scripts: ${scripts.join(', ')}`,
    `  long tasks: ${tasks.join(', ')}`,
  ];
  // BENCH_WEB_DETAILS=requests: every request with its start and end, the waterfall the page loads through.
  if (process.env.BENCH_WEB_DETAILS === 'requests') {
    for (const r of items('network-requests'))
      lines.push(
        `    ${Math.round(r.networkRequestTime)}–${Math.round(r.networkEndTime)} ms ${kB(r.transferSize ?? 0)} ${String(r.url)
          .replace(/^https?:\/\/[^/]+/, '')
          .slice(0, 90)}`,
      );
  }
  return lines.join('\n');
}

const kB = (bytes) => `${(bytes / 1000).toFixed(0)} kB`;

async function main() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  startServer(port);
  await waitFor(`${base}/readyz`);
  const demo = quickstart(port);
  await seedRecords(base, demo);
  const cookie = await signIn(base, demo.dashboard.sign_in_link);
  const scope = `establishment=${demo.establishment.id}&mode=test`;
  const pages = [
    { name: 'sign-in', path: '/dashboard/sign-in' },
    { name: 'overview', path: `/dashboard/overview?${scope}`, signedIn: true },
    { name: 'records', path: `/dashboard/records?${scope}`, signedIn: true },
    { name: 'forecast', path: `/dashboard/forecast?${scope}`, signedIn: true },
    // The kitchen station's page as a tablet opens it (its own entry, without the dashboard's pages).
    { name: 'station', path: '/dashboard/station' },
  ];

  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const missed = [];
  const rows = [];
  try {
    // BENCH_WEB_PAGES=overview,records and BENCH_WEB_PRESETS=mobile narrow a run to what is being worked on.
    const only = (name, list) => (process.env[name] ? process.env[name].split(',').includes(list) : true);
    for (const preset of ['mobile', 'desktop'].filter((p) => only('BENCH_WEB_PRESETS', p))) {
      for (const page of pages.filter((p) => only('BENCH_WEB_PAGES', p.name))) {
        const r = await measure(chrome.port, `${base}${page.path}`, preset, page.signedIn ? cookie : undefined);
        if (page.signedIn && !new URL(r.finalUrl).pathname.endsWith(page.name))
          throw new Error(`${page.name}: ended at ${r.finalUrl} (not signed in?)`);
        rows.push({ page: page.name, preset, ...r });
        console.log(
          `${preset.padEnd(7)} ${page.name.padEnd(9)} performance ${String(r.score).padStart(3)}  LCP ${(r.lcp / 1000).toFixed(2)} s  CLS ${r.cls.toFixed(3)}  TBT ${Math.round(r.tbt)} ms  transferred ${kB(r.bytes)} (JS ${kB(r.jsBytes)} in ${r.scripts} files)`,
        );
        if (r.late > 0) console.log(`  first frame presented late (observed FCP over 1 s) in ${r.late} of ${r.of} runs`);
        if (r.details) console.log(r.details);
        if (preset === 'mobile' && r.score < GOALS.mobileScore)
          missed.push(`${page.name} (mobile): performance ${r.score} < ${GOALS.mobileScore}`);
        if (r.lcp >= GOALS.lcpMs) missed.push(`${page.name} (${preset}): LCP ${(r.lcp / 1000).toFixed(2)} s ≥ ${GOALS.lcpMs / 1000} s`);
        if (r.cls >= GOALS.cls) missed.push(`${page.name} (${preset}): CLS ${r.cls.toFixed(3)} ≥ ${GOALS.cls}`);
      }
    }
  } finally {
    await chrome.kill();
  }
  // BENCH_WEB_HOLD=1: keep the server and its data up after the runs, to look at the pages or
  // profile them in a browser of one's own with the printed cookie (Ctrl-C ends it).
  if (process.env.BENCH_WEB_HOLD) {
    console.log(`holding: ${base} (scope ${scope}) cookie ${cookie}`);
    await new Promise((resolve) => process.once('SIGINT', resolve));
  }
  if (hostIndexes.length > 0) {
    const sorted = [...hostIndexes].sort((a, b) => a - b);
    console.log(
      `host: Lighthouse benchmarkIndex ${Math.round(median(sorted))} (median of ${sorted.length} runs, ${Math.round(sorted[0])}–${Math.round(sorted.at(-1))})` +
        (median(sorted) < 1000
          ? '; under 1,000, Lighthouse warns that the host CPU is slower than its mobile preset expects, and TBT and the scores read low'
          : ''),
    );
  }
  if (lateFrames.late > 0)
    console.log(
      `late first frames: ${lateFrames.late} of ${lateFrames.runs} runs (the browser's, see LATE_FRAME_MS; kept in the medians, and with BENCH_WEB_RUNS=1 a page's figures are such a run's)`,
    );
  for (const line of missed) console.log(`MISSED ${line}`);
  if (missed.length === 0) console.log('all goals met: mobile performance ≥ 90, LCP < 2.5 s, CLS < 0.1 on every page');
  if (process.env.BENCH_WEB_JSON) console.log(JSON.stringify(rows));
}

try {
  await main();
} finally {
  await stopAndDrop(children, ADMIN_URL, DB_NAME);
}
