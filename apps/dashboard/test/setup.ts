import '@testing-library/jest-dom/vitest';
import { notifications } from '@mantine/notifications';
import { cleanup } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { i18n } from '../src/i18n/index.ts';
import { queryClient } from '../src/trpc.ts';
import { api, listen, network } from './support/api.ts';

// Mantine's test set-up (mantine.dev/guides/vitest), with the same answers in every DOM: no media
// query matches (the narrow layout), and nothing is ever resized.
const { getComputedStyle } = window;
window.getComputedStyle = (element) => getComputedStyle(element);
window.HTMLElement.prototype.scrollIntoView = () => {};
// The router restores the scroll position on each navigation.
window.scrollTo = () => {};
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});
// Mantine's Textarea resizes itself again once web fonts have loaded.
Object.defineProperty(document, 'fonts', {
  value: { addEventListener() {}, removeEventListener() {}, ready: Promise.resolve() },
});
window.ResizeObserver = class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

// jsdom lays nothing out, so every chart measures 0 × 0 and Recharts says so on each render; the
// figures the charts draw are also on the pages as text, which is what the tests read.
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].startsWith('The width(0) and height(0) of chart')) return;
  warn(...args);
};

/** "Now" in every test: late on 24 November in UTC, already the 25th in Madrid (the establishment's zone). */
export const NOW = new Date('2026-11-24T23:30:00Z');

beforeAll(listen);

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(NOW);
  await i18n.changeLanguage('en');
});

afterEach(() => {
  cleanup();
  notifications.clean();
  queryClient.clear();
  vi.useRealTimers();
  const missing = [...new Set(api.missing())];
  api.reset();
  if (missing.length > 0) throw new Error(`The page made calls no fixture answers: ${missing.join('; ')}`);
});

afterAll(() => network.close());
