/** Synthetic daily series for the forecasting tests: the same on every run. */

/** A seeded generator (a linear congruential one), so a synthetic series is the same on every run. */
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WEEK = [6, 0, -3, 2, 9, 14, -8]; // weekday effects in kg

/** `days` of waste in kg: 25 kg, a slight upward trend, a weekly pattern and uniform noise of ±`noise` kg. */
export function series(days: number, seed: number, noise = 2): number[] {
  const r = rng(seed);
  return Array.from({ length: days }, (_, t) => 25 + 0.04 * t + (WEEK[t % 7] as number) + (r() - 0.5) * 2 * noise);
}
