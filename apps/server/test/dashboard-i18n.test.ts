import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The dashboard shows no word that is not in its message files (src/i18n/es.json, the typed key
 * source, and en.json; the kitchen station's in station.es.json and station.en.json, the Integrations
 * page's in integrations.es.json and integrations.en.json, the Donations page's in donations.es.json
 * and donations.en.json, the Audit log's in audit.es.json and audit.en.json): every source file under apps/dashboard/src is parsed with the TypeScript
 * compiler and these are refused:
 *
 * - JSX text with a letter (`<Button>Save</Button>`), or a string as a JSX child (`{'Save'}`);
 * - a string with a letter in a user-facing JSX attribute (`label="Name"`, `title={'Name'}`);
 * - in .tsx files, a string with a letter in an object property that is shown to people
 *   (`notifications.show({ message: 'Saved' })`, a column's `{ header: 'Name' }`).
 *
 * Strings that are clearly not words pass (URLs and paths, CSS values, identifiers, date-format
 * tokens, single characters). Anything else that must stay as written (a brand name, a code sample)
 * carries `// i18n-ignore: <reason>` (or a `{/* i18n-ignore: <reason> *\/}` in JSX) on its line or the
 * line above; an ignore that no longer exempts anything is itself reported.
 *
 * The message files must have the same keys with no empty message, and every key the sources pass to
 * `t('…')` must exist (for `t(`audit.actions.${x}`)`, the group `audit.actions` must).
 */
const DASHBOARD_SRC = join(__dirname, '../../dashboard/src');

/** JSX attributes whose value people read (or hear, for aria-label and alt). */
const USER_FACING_ATTRIBUTES = new Set([
  'label',
  'title',
  'placeholder',
  'description',
  'aria-label',
  'alt',
  'error',
  'message',
  'children',
  'tooltip',
  'confirmLabel',
  'cancelLabel',
  'emptyMessage',
  'empty',
  'caption',
  'header',
]);

/** Object properties (in .tsx files) whose value is shown: notifications, modals, table columns, inputProps. */
const USER_FACING_PROPERTIES = new Set(['label', 'title', 'message', 'description', 'header', 'aria-label']);

const PLURAL_SUFFIXES = ['zero', 'one', 'two', 'few', 'many', 'other'];

interface Finding {
  file: string;
  line: number;
  text: string;
}

const format = (f: Finding) => `${f.file}:${f.line} ${JSON.stringify(f.text)}`;

/** Text that is not a sentence for people: URLs and paths, CSS, identifiers, format tokens, one character. */
function isClearlyNotWords(raw: string): boolean {
  const text = raw.trim();
  if (!/\p{L}/u.test(text)) return true;
  if ([...text].length === 1) return true;
  if (/^(?:[a-z][a-z0-9+.-]*:\/\/|mailto:|\/)\S*$/i.test(text)) return true; // URL or absolute path
  if (/^#[0-9a-f]{3,8}$/i.test(text)) return true; // colour
  if (/^(?:-?\d*\.?\d+(?:px|rem|em|ex|ch|vh|vw|dvh|svh|%|fr|s|ms|deg)\s*)+$/.test(text)) return true; // CSS lengths
  if (/^(?:var|calc|rgba?|hsla?|min|max|clamp)\(.*\)$/.test(text)) return true; // CSS functions
  if (/^[a-z0-9]+(?:[-_:.][a-z0-9]+)+$/i.test(text)) return true; // kebab, snake, dotted or scoped ids
  if (/^[a-z]+(?:[A-Z][a-z0-9]*)+$/.test(text)) return true; // camelCase identifier
  if (/^(?:[YMDdHhmsSaAZQWEoLTxX]+[\s\-/.:,T[\]]*)+$/.test(text) && /(?:YY|MM|DD|HH|mm|ss)/.test(text)) return true; // date tokens
  return false;
}

/** The static text of a string-like expression shown to people, with `a ? 'x' : 'y'` and `a ?? 'x'` looked through. */
function shownStrings(node: ts.Expression): { node: ts.Node; text: string }[] {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) return shownStrings(node.expression);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [{ node, text: node.text }];
  if (ts.isTemplateExpression(node)) {
    const text = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ');
    return [{ node, text }];
  }
  if (ts.isConditionalExpression(node)) return [...shownStrings(node.whenTrue), ...shownStrings(node.whenFalse)];
  if (
    ts.isBinaryExpression(node) &&
    [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.AmpersandAmpersandToken].includes(
      node.operatorToken.kind,
    )
  ) {
    return shownStrings(node.right);
  }
  return [];
}

function propertyName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

/** Lines (1-based) that carry `i18n-ignore: <reason>` in a comment. */
function ignoreLines(source: ts.SourceFile): Set<number> {
  const lines = new Set<number>();
  for (const match of source.text.matchAll(/\/[/*]\s*i18n-ignore:\s*\S/g)) {
    lines.add(source.getLineAndCharacterOfPosition(match.index).line + 1);
  }
  return lines;
}

/**
 * The hard-coded strings of one source file, and the `i18n-ignore` comments that exempt nothing.
 * `file` names the file in the report; its extension says whether it is TSX.
 */
function findHardCodedStrings(file: string, text: string): { problems: Finding[]; staleIgnores: Finding[] } {
  const tsx = file.endsWith('.tsx');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, tsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const ignores = ignoreLines(source);
  const usedIgnores = new Set<number>();
  const problems: Finding[] = [];

  const report = (node: ts.Node, shown: string) => {
    if (isClearlyNotWords(shown)) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    for (const candidate of [line, line - 1]) {
      if (ignores.has(candidate)) {
        usedIgnores.add(candidate);
        return;
      }
    }
    problems.push({ file, line, text: shown.trim().replace(/\s+/g, ' ') });
  };
  const reportShown = (expression: ts.Expression) => {
    for (const s of shownStrings(expression)) report(s.node, s.text);
  };

  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) {
      if (!node.containsOnlyTriviaWhiteSpaces) report(node, node.text);
    } else if (ts.isJsxExpression(node) && node.expression && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) {
      reportShown(node.expression); // {'Save'} or {busy ? 'Saving' : 'Save'} as a child
    } else if (ts.isJsxAttribute(node) && node.initializer && USER_FACING_ATTRIBUTES.has(node.name.getText(source))) {
      if (ts.isStringLiteral(node.initializer)) report(node.initializer, node.initializer.text);
      else if (ts.isJsxExpression(node.initializer) && node.initializer.expression) reportShown(node.initializer.expression);
    } else if (tsx && ts.isPropertyAssignment(node)) {
      const name = propertyName(node.name);
      if (name && USER_FACING_PROPERTIES.has(name)) reportShown(node.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);

  const staleIgnores = [...ignores]
    .filter((line) => !usedIgnores.has(line))
    .map((line) => ({ file, line, text: source.text.split('\n')[line - 1]?.trim() ?? '' }));
  return { problems, staleIgnores };
}

/** The key expressions of a `t(…)` argument, looking through `a ? 'x.y' : 'x.z'`. */
function keyExpressions(node: ts.Expression): ts.Expression[] {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node))
    return keyExpressions(node.expression);
  if (ts.isConditionalExpression(node)) return [...keyExpressions(node.whenTrue), ...keyExpressions(node.whenFalse)];
  return [node];
}

/** The keys passed to `t('…')` / `i18n.t('…')`: literal ones, and the static group of template ones. */
function translationKeys(file: string, text: string): { literal: Finding[]; groups: Finding[] } {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const literal: Finding[] = [];
  const groups: Finding[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isT = (ts.isIdentifier(callee) && callee.text === 't') || (ts.isPropertyAccessExpression(callee) && callee.name.text === 't');
      const [argument] = node.arguments;
      if (isT && argument) {
        for (const key of keyExpressions(argument)) {
          const line = source.getLineAndCharacterOfPosition(key.getStart(source)).line + 1;
          if (ts.isStringLiteral(key) || ts.isNoSubstitutionTemplateLiteral(key)) literal.push({ file, line, text: key.text });
          else if (ts.isTemplateExpression(key)) {
            const group = key.head.text.slice(0, key.head.text.lastIndexOf('.'));
            if (group) groups.push({ file, line, text: group });
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { literal, groups };
}

type Messages = { [key: string]: string | Messages };

/** Every leaf of a message tree, by its dotted key. */
function leaves(tree: Messages, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of leaves(value, path)) out.set(k, v);
    } else out.set(path, value);
  }
  return out;
}

function lookup(tree: Messages, key: string): unknown {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Messages)[part];
  }
  return node;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sources(path);
    return /\.tsx?$/.test(d.name) && !/\.(test|spec)\.tsx?$/.test(d.name) && !d.name.endsWith('.d.ts') ? [path] : [];
  });
}

const files = sources(DASHBOARD_SRC).map((path) => ({
  name: relative(DASHBOARD_SRC, path).replaceAll('\\', '/'),
  text: readFileSync(path, 'utf8'),
}));
/** A message file of the dashboard, parsed. */
const messageFile = (name: string) => JSON.parse(readFileSync(join(DASHBOARD_SRC, `i18n/${name}.json`), 'utf8'));
/** The plan's messages: the banner every page may show (main file) and the Prevention plan page's (`plan` namespace). */
const mergePlan = (language: string) => ({
  plan: { ...messageFile(language).plan, ...messageFile(`plan.${language}`).plan },
});

/**
 * A language's messages: the dashboard's, the kitchen station's namespace (its keys start with
 * `station.`), the Integrations page's (its keys start with `integrations.`), the Donations
 * page's (`donations.`) and the Prevention plan page's (`plan.page.`, `plan.doc.`).
 */
const messages = (language: string) =>
  ({
    ...JSON.parse(readFileSync(join(DASHBOARD_SRC, `i18n/${language}.json`), 'utf8')),
    ...JSON.parse(readFileSync(join(DASHBOARD_SRC, `i18n/station.${language}.json`), 'utf8')),
    ...JSON.parse(readFileSync(join(DASHBOARD_SRC, `i18n/integrations.${language}.json`), 'utf8')),
    ...JSON.parse(readFileSync(join(DASHBOARD_SRC, `i18n/donations.${language}.json`), 'utf8')),
    ...JSON.parse(readFileSync(join(DASHBOARD_SRC, `i18n/audit.${language}.json`), 'utf8')),
    // The signing page's (`sign.`), an entry of its own with its own i18next instance (src/sign/i18n.ts).
    ...JSON.parse(readFileSync(join(DASHBOARD_SRC, `i18n/sign.${language}.json`), 'utf8')),
    ...mergePlan(language),
  }) as Messages;
const es = messages('es');
const en = messages('en');

describe('the hard-coded string checker', () => {
  it('reports JSX text and a user-facing attribute', () => {
    const { problems } = findHardCodedStrings(
      'Snippet.tsx',
      'export const A = () => <Button>Save</Button>;\nexport const B = () => <TextInput label="Name" />;\n',
    );
    expect(problems).toEqual([
      { file: 'Snippet.tsx', line: 1, text: 'Save' },
      { file: 'Snippet.tsx', line: 2, text: 'Name' },
    ]);
  });

  it('passes translated text', () => {
    expect(findHardCodedStrings('Snippet.tsx', "export const A = () => <Button>{t('x')}</Button>;\n").problems).toEqual([]);
  });

  it('reports braced, conditional and template strings, shown properties and string children', () => {
    const snippet = [
      "<Tooltip label={'Copy'} />;", // 1
      "<Badge title={busy ? 'Saving' : t('x')} />;", // 2
      `const columns = [{ key: 'name', header: \`Name of \${x}\` }];`, // 3
      "notifications.show({ color: 'red', message: 'Saved' });", // 4
      "<Text>{ok ? t('y') : 'Failed'}</Text>;", // 5
      "<Checkbox inputProps={{ 'aria-label': 'Select all' }} />;", // 6
      "<Stack>{empty && 'Nothing yet'}</Stack>;", // 7
    ].join('\n');
    expect(findHardCodedStrings('Snippet.tsx', snippet).problems.map((p) => [p.line, p.text])).toEqual([
      [1, 'Copy'],
      [2, 'Saving'],
      [3, 'Name of'],
      [4, 'Saved'],
      [5, 'Failed'],
      [6, 'Select all'],
      [7, 'Nothing yet'],
    ]);
  });

  it('passes strings that are not words, and exempts a line marked i18n-ignore', () => {
    const snippet = [
      '<Anchor href="https://merma.example/docs" title="https://merma.example" />;',
      '<Box w="12rem" title="var(--mantine-color-red-6)" label="records-table" />;',
      '<Text title="YYYY-MM-DD HH:mm" label="createdAt" aria-label="×">{\'—\'} · 42</Text>;',
      '<Title>Merma</Title>; // i18n-ignore: product name',
      '{/* i18n-ignore: code sample */}',
      '<Code>curl -H Authorization</Code>;',
    ].join('\n');
    const { problems, staleIgnores } = findHardCodedStrings('Snippet.tsx', snippet);
    expect(problems).toEqual([]);
    expect(staleIgnores).toEqual([]);
  });

  it('reports an i18n-ignore that exempts nothing, and shown properties only in .tsx files', () => {
    const { staleIgnores } = findHardCodedStrings('Snippet.tsx', "<Title>{t('x')}</Title>; // i18n-ignore: was a brand\n");
    expect(staleIgnores.map((f) => f.line)).toEqual([1]);
    expect(findHardCodedStrings('lib.ts', "export const x = { label: 'Name' };\n").problems).toEqual([]);
  });
});

describe('the translation key finder', () => {
  it('finds literal keys, both keys of a conditional, and the group of a template key', () => {
    const snippet = [
      "t('a.b');",
      "i18n.t(ok ? 'c.d' : 'e', { count });",
      `t(\`audit.actions.\${x}\`);`,
      `t(\`\${y}\`);`,
      'format(key);',
    ].join('\n');
    const { literal, groups } = translationKeys('lib.ts', snippet);
    expect(literal.map((f) => [f.line, f.text])).toEqual([
      [1, 'a.b'],
      [2, 'c.d'],
      [2, 'e'],
    ]);
    expect(groups.map((f) => [f.line, f.text])).toEqual([[3, 'audit.actions']]);
  });
});

describe('the dashboard sources', () => {
  it('are all found', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(files.map((f) => f.name)).toContain('main.tsx');
  });

  it('show no hard-coded UI text', () => {
    const problems = files.flatMap((f) => findHardCodedStrings(f.name, f.text).problems);
    expect(problems.map(format)).toEqual([]);
  });

  it('carry no i18n-ignore that exempts nothing', () => {
    const stale = files.flatMap((f) => findHardCodedStrings(f.name, f.text).staleIgnores);
    expect(stale.map(format)).toEqual([]);
  });

  it("pass only keys that exist in es.json to t('…')", () => {
    const keys = files.flatMap((f) => translationKeys(f.name, f.text).literal);
    expect(keys.length).toBeGreaterThan(50);
    const missing = keys.filter(({ text: key }) => {
      if (typeof lookup(es, key) === 'string') return false;
      return !PLURAL_SUFFIXES.some((suffix) => typeof lookup(es, `${key}_${suffix}`) === 'string');
    });
    expect(missing.map(format)).toEqual([]);
  });

  it('build template keys only under groups that exist in es.json', () => {
    const groups = files.flatMap((f) => translationKeys(f.name, f.text).groups);
    expect(groups.length).toBeGreaterThan(5);
    const missing = groups.filter(({ text: group }) => {
      const node = lookup(es, group);
      return node === null || typeof node !== 'object';
    });
    expect(missing.map(format)).toEqual([]);
  });
});

describe('the message files', () => {
  const esLeaves = leaves(es);
  const enLeaves = leaves(en);

  it('have the same keys in Spanish and English', () => {
    expect(esLeaves.size).toBeGreaterThan(100);
    expect({
      missingInEn: [...esLeaves.keys()].filter((k) => !enLeaves.has(k)),
      missingInEs: [...enLeaves.keys()].filter((k) => !esLeaves.has(k)),
    }).toEqual({ missingInEn: [], missingInEs: [] });
  });

  it('have no empty message, and only strings as messages', () => {
    const bad = [...[...esLeaves].map(([k, v]) => ['es', k, v] as const), ...[...enLeaves].map(([k, v]) => ['en', k, v] as const)]
      .filter(([, , v]) => typeof v !== 'string' || v.trim() === '')
      .map(([lang, k, v]) => `${lang}: ${k} = ${JSON.stringify(v)}`);
    expect(bad).toEqual([]);
  });
});
