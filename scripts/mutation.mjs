#!/usr/bin/env node
// Mutation testing (Stryker, vitest runner) of the packages with a stryker.config.mjs, one after the
// other: `pnpm test:mutation` runs all of them, `pnpm test:mutation signing sdk` only those. Each
// package's config lists the files it mutates and the unit tests it runs; its full report is left in
// <package>/reports/mutation/ (index.html, mutation.json). Prints the score per file and the time,
// and writes them to docs/mutation-scores.md (a package not run keeps its last section there).
// Runs are incremental (stryker.base.mjs): MUTATION_FORCE=1 tests every mutant again.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGES = {
  signing: 'packages/signing',
  schema: 'packages/schema',
  sdk: 'packages/sdk',
  server: 'apps/server',
  dashboard: 'apps/dashboard',
};
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in PACKAGES));
if (unknown.length) {
  console.error(`unknown package ${unknown.join(', ')}; choose among ${Object.keys(PACKAGES).join(', ')}`);
  process.exit(2);
}
const stryker = join(root, 'node_modules', '.bin', 'stryker');

/** Stryker's score: mutants detected (killed or timed out) over all valid ones (no compile or runtime errors). */
function score(mutants) {
  const count = (status) => mutants.filter((m) => m.status === status).length;
  const detected = count('Killed') + count('Timeout');
  const valid = detected + count('Survived') + count('NoCoverage');
  return { detected, valid, survived: count('Survived'), noCoverage: count('NoCoverage'), score: valid ? (100 * detected) / valid : 100 };
}

const summary = [];
let failed = false;
/** docs/mutation-scores.md by package: the packages run now replace their section, the others keep theirs. */
const SCORES = join(root, 'docs', 'mutation-scores.md');
const sections = new Map();
if (existsSync(SCORES)) {
  for (const part of readFileSync(SCORES, 'utf8')
    .split(/^(?=## )/m)
    .slice(1)) {
    const name = /^## (\S+)/.exec(part)?.[1];
    if (name && name in PACKAGES) sections.set(name, part.trimEnd() + '\n');
  }
}
for (const name of asked.length ? asked : Object.keys(PACKAGES)) {
  const dir = join(root, PACKAGES[name]);
  console.log(`\n=== mutation testing: ${name} (${relative(root, dir)}) ===`);
  const started = performance.now();
  const run = spawnSync(stryker, ['run', ...(process.env.MUTATION_FORCE ? ['--force'] : [])], { cwd: dir, stdio: 'inherit' });
  const seconds = Math.round((performance.now() - started) / 1000);
  if (run.status !== 0) {
    failed = true;
    summary.push(`${name}: stryker failed (exit ${run.status}) after ${seconds} s`);
    continue;
  }
  const report = JSON.parse(readFileSync(join(dir, 'reports', 'mutation', 'mutation.json'), 'utf8'));
  const files = Object.entries(report.files).map(([file, { mutants }]) => ({ file, ...score(mutants) }));
  const all = score(Object.values(report.files).flatMap((f) => f.mutants));
  summary.push(
    `${name}: ${all.score.toFixed(2)} % (${all.detected}/${all.valid} mutants detected, ${all.survived} survived, ${all.noCoverage} without a test) in ${Math.floor(seconds / 60)} min ${seconds % 60} s`,
    ...files.map((f) => `  ${f.file}: ${f.score.toFixed(2)} % (${f.detected}/${f.valid})`),
  );
  sections.set(
    name,
    [
      `## ${name} (${relative(root, dir)}): ${all.score.toFixed(2)} %`,
      '',
      `${all.detected} of ${all.valid} mutants detected, ${all.survived} survived, ${all.noCoverage} without a test; run on ${new Date().toISOString().slice(0, 10)}.`,
      '',
      '| file | score | detected / valid |',
      '|---|---:|---:|',
      ...files.map((f) => `| \`${f.file}\` | ${f.score.toFixed(2)} % | ${f.detected} / ${f.valid} |`),
      '',
    ].join('\n'),
  );
}
console.log(`\n=== mutation scores ===\n${summary.join('\n')}`);
writeFileSync(
  SCORES,
  [
    '# Mutation scores',
    '',
    'Written by `pnpm test:mutation` (scripts/mutation.mjs): per package, the share of mutants its unit tests',
    "detect, per file mutated (each package's stryker.config.mjs says which files and lines, and why). The",
    'aim is 85 % and more on every file. Runs are incremental; the full reports are left in',
    '`<package>/reports/mutation/`.',
    '',
    ...Object.keys(PACKAGES)
      .filter((name) => sections.has(name))
      .map((name) => sections.get(name)),
  ].join('\n'),
);
process.exit(failed ? 1 : 0);
