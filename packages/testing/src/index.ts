/**
 * The one source of deadlines for every test suite in the repository.
 *
 * A deadline in a test is a guard against a hang, never a performance goal (those live in
 * `pnpm bench`): it must be long enough that a loaded machine still gets there, and short enough
 * that a real hang ends the run. Every deadline — vitest's test and hook timeouts, `expect.poll`,
 * Playwright's waits, a job or a child process waited for — is written as `deadline(ms)`, where
 * `ms` is what an idle developer machine comfortably needs; the scale stretches them all at once.
 *
 * `TEST_TIME_SCALE` sets the scale (a number ≥ 1); without it, CI (`CI=true`, where two test
 * files and their browsers share two cores) uses 3 and a developer machine 1. A value that is not
 * a number ≥ 1 stops the run with a message rather than being ignored.
 */
export const TIME_SCALE: number = scaleFrom(process.env.TEST_TIME_SCALE, process.env.CI);

export function scaleFrom(given: string | undefined, ci: string | undefined): number {
  if (given === undefined || given.trim() === '') return ci && ci !== 'false' && ci !== '0' ? 3 : 1;
  const scale = Number(given);
  if (!Number.isFinite(scale) || scale < 1) throw new Error(`TEST_TIME_SCALE must be a number ≥ 1, not "${given}"`);
  return scale;
}

/** `ms` (what an idle machine needs, with room) stretched by the run's scale. */
export const deadline = (ms: number): number => Math.round(ms * TIME_SCALE);
