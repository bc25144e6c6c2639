import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { StepLine } from '../../src/customer/steps.js';

const require = createRequire(import.meta.url);

/**
 * bun and deno ship their executables in per-platform packages (optional dependencies of `bun`
 * and `deno`); their postinstall scripts, which pnpm blocks here, would only copy them. Found
 * next to the wrapper package, so the lockfile decides the version.
 */
export function bunBinary(): string {
  const fromBun = createRequire(require.resolve('bun/package.json'));
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;
  const dir = dirname(fromBun.resolve(`@oven/bun-${process.platform}-${arch}/package.json`));
  return join(dir, 'bin', process.platform === 'win32' ? 'bun.exe' : 'bun');
}

export function denoBinary(): string {
  const fromDeno = createRequire(require.resolve('deno/package.json'));
  const name = process.platform === 'linux' ? `@deno/linux-${process.arch}-glibc` : `@deno/${process.platform}-${process.arch}`;
  return join(dirname(fromDeno.resolve(`${name}/package.json`)), process.platform === 'win32' ? 'deno.exe' : 'deno');
}

export function tscScript(): string {
  return join(dirname(require.resolve('typescript/package.json')), 'lib/tsc.js');
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function assertChromium(): void {
  // Not a skip: the browser is one of the runtimes this package exists to prove.
  if (!existsSync(CHROMIUM)) {
    throw new Error(`chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  }
}

export type RunResult = { lines: StepLine[]; exitCode: number | null; stdout: string; stderr: string };

/** Parses the customer script's `{"step":…}` lines out of its output. */
export function stepLines(output: string): StepLine[] {
  const lines: StepLine[] = [];
  for (const raw of output.split('\n')) {
    const text = raw.trim();
    if (!text.startsWith('{"step"')) continue;
    try {
      lines.push(JSON.parse(text) as StepLine);
    } catch {
      // a line that only looks like one
    }
  }
  return lines;
}

/**
 * A clean environment for a customer process: nothing of vitest's (no NODE_OPTIONS, no loaders),
 * a private HOME, and only what the runtime needs.
 */
export function customerEnv(home: string, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', ...extra };
}

export function runProcess(command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs: number }) {
  return new Promise<RunResult>((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ lines: stepLines(stdout), exitCode: code, stdout, stderr });
    });
  });
}

/** The runtime × step table printed at the end of the run. */
export class Matrix {
  private readonly rows = new Map<string, { expected: readonly string[]; lines: StepLine[] }>();

  record(runtime: string, expected: readonly string[], lines: StepLine[]): void {
    this.rows.set(runtime, { expected, lines });
  }

  /** Problems for one runtime: a missing line or a failed step, with the error the step printed. */
  static problems(expected: readonly string[], lines: StepLine[]): string[] {
    const out: string[] = [];
    for (const step of expected) {
      const line = lines.find((l) => l.step === step);
      if (!line) out.push(`${step}: printed no line`);
      else if (!line.ok)
        out.push(`${step}: ${line.skipped ? '(skipped) ' : ''}${line.name ? `${line.name}: ` : ''}${line.error ?? 'failed'}`);
    }
    return out;
  }

  render(order: readonly string[]): string {
    const steps = order.filter((s) => [...this.rows.values()].some((r) => r.expected.includes(s)));
    const names = [...this.rows.keys()];
    const width = Math.max(7, ...names.map((n) => n.length));
    const cell = (runtime: string, step: string) => {
      const row = this.rows.get(runtime);
      if (!row?.expected.includes(step)) return '·';
      const line = row.lines.find((l) => l.step === step);
      if (!line) return '—';
      return line.ok ? 'pass' : line.skipped ? 'skip' : 'FAIL';
    };
    const widths = steps.map((s) => Math.max(s.length, 4));
    const header = ['runtime'.padEnd(width), ...steps.map((s, i) => s.padEnd(widths[i] as number))].join(' | ');
    const rule = header.replace(/[^|]/g, '-');
    const body = names.map((n) => [n.padEnd(width), ...steps.map((s, i) => cell(n, s).padEnd(widths[i] as number))].join(' | '));
    const failures = names.flatMap((n) => {
      const row = this.rows.get(n);
      return row ? Matrix.problems(row.expected, row.lines).map((p) => `  ${n} · ${p}`) : [];
    });
    return [
      'Packed @merma/sdk × runtime (pass; FAIL; skip = not run because an earlier step failed; — = no line printed; · = not applicable)',
      header,
      rule,
      ...body,
      ...(failures.length ? ['', 'Failures:', ...failures.map((f) => (f.length > 240 ? `${f.slice(0, 240)}…` : f))] : []),
    ].join('\n');
  }
}
