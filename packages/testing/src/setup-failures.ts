/**
 * A vitest reporter that names every test a failed setup kept from running. When a `beforeAll`
 * throws (the database or a stand-in server did not start), vitest marks the suite failed and its
 * tests *skipped*: the run fails, but its summary reads "6 skipped" beside the one suite error, as
 * if they had been left out on purpose. This reporter lists each of them as not run, with the
 * setup's error, and counts them in a last line, so that a start-up failure reads as the failure
 * of every test it stopped:
 *
 *   ✗ not run, its setup failed: test/square-api.test.ts > Square API > retries a 429
 *     (beforeAll: the Square stand-in did not answer within 90 s)
 *   6 tests not run because their setup failed (counted among the "skipped" above)
 *
 * A test skipped on purpose (`it.skip`, `skipIf`) has no failed suite above it and is not listed.
 */
import { relative } from 'node:path';

/** The parts of vitest's reported tasks this reporter reads (its Reporter API, vitest ≥ 3). */
type Errors = { errors(): readonly { message: string }[] };
type Parent = Errors & { type: 'suite' | 'module'; parent?: Parent; moduleId?: string };
type TestCase = {
  fullName: string;
  parent: Parent;
  module: { moduleId: string };
  options: { mode: string };
  result(): { state: string };
};
type TestModule = Errors & { moduleId: string; children: { allTests(): Iterable<TestCase> } };

export default class SetupFailures {
  private readonly notRun: string[] = [];

  onTestModuleEnd(module: TestModule): void {
    for (const test of module.children.allTests()) {
      // Skipped by the run, not by its author (`it.skip`, `it.todo`).
      if (test.result().state !== 'skipped' || test.options.mode !== 'run') continue;
      const failed = failedSetup(test.parent);
      if (failed === null) continue;
      const file = relative(process.cwd(), test.module.moduleId);
      this.notRun.push(`✗ not run, its setup failed: ${file} > ${test.fullName}\n  (${failed})`);
    }
  }

  onTestRunEnd(): void {
    if (this.notRun.length === 0) return;
    const out = process.stderr;
    out.write(`\n${this.notRun.join('\n')}\n`);
    out.write(
      `${this.notRun.length === 1 ? '1 test' : `${this.notRun.length} tests`} not run because ${this.notRun.length === 1 ? 'its' : 'their'} setup failed (counted among the "skipped" above)\n`,
    );
  }
}

/** The first error of a suite (or module) above the test, its own or an ancestor's: a hook that threw. */
function failedSetup(parent: Parent | undefined): string | null {
  for (let p = parent; p; p = p.parent) {
    const [error] = p.errors();
    if (error) return `${p.type === 'module' ? 'file setup' : 'beforeAll'}: ${error.message.split('\n')[0]}`;
  }
  return null;
}
