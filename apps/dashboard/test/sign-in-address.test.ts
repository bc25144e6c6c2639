import { describe, expect, it } from 'vitest';
import { destination, signInAddress } from '../src/sign-in/address.ts';

describe("the sign-in page's addresses", () => {
  it('moves a page of the app to the sign-in address, the page kept in ?redirect= as the router writes it', () => {
    expect(signInAddress('/dashboard/records', '?mode=live', '')).toBe('/dashboard/sign-in?redirect=%2Frecords%3Fmode%3Dlive');
    expect(signInAddress('/dashboard/', '', '')).toBe('/dashboard/sign-in?redirect=%2F');
    expect(signInAddress('/dashboard', '', '')).toBe('/dashboard/sign-in?redirect=%2F');
    expect(signInAddress('/dashboard/sign-in', '?redirect=%2Frecords', '')).toBeNull();
    expect(signInAddress('/dashboard/sign-in/', '', '')).toBeNull();
  });

  it('leads to the page in ?redirect= when it is one of this app, else to the app itself (never another site)', () => {
    expect(destination('?redirect=%2Frecords%3Fmode%3Dlive')).toBe('/dashboard/records?mode=live');
    expect(destination('')).toBe('/dashboard/');
    for (const foreign of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'records']) {
      expect(destination(`?${new URLSearchParams({ redirect: foreign })}`), foreign).toBe('/dashboard/');
    }
  });
});
