import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Callers are resolved in one place (src/modules/tenancy/callers.ts): it alone builds a `Tenant`
 * or an `AuthContext` and joins a credential's establishment to its organisation's plan. A fifth
 * kind of credential then touches that file and one surface (src/http/surfaces/), not every layer.
 * Read from the sources (TypeScript's parser), as the lint walls are.
 */

const SRC = join(import.meta.dirname, '../src');
const CALLERS = 'modules/tenancy/callers.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The places a file builds a caller's tenant: object literals of its shape, or values typed or cast as one. */
function tenantBuilders(file: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const where = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const callerType = (type: ts.TypeNode | undefined) => !!type && /^(AuthContext|Tenant)$/.test(type.getText());
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const names = new Set(node.properties.map((p) => (p.name && ts.isIdentifier(p.name) ? p.name.text : '')));
      const tenantShape = ['establishmentId', 'organizationId', 'livemode'].every((n) => names.has(n));
      if (tenantShape || names.has('credential')) found.push(where(node));
    }
    // (A Fastify decorator's placeholder, `null as unknown as AuthContext`, builds nothing.)
    if (
      (ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) &&
      callerType(node.type) &&
      !/^null\b/.test(node.expression.getText())
    ) {
      found.push(where(node));
    }
    if (ts.isVariableDeclaration(node) && callerType(node.type) && node.initializer && ts.isObjectLiteralExpression(node.initializer)) {
      found.push(where(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('callers are resolved in modules/tenancy/callers.ts only', () => {
  const files = sources(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

  it('no other file builds a Tenant or an AuthContext', () => {
    const elsewhere = files.filter((f) => f.path !== CALLERS).flatMap((f) => tenantBuilders(f.path, f.text));
    expect(elsewhere).toEqual([]);
    // The check finds what it looks for: the resolvers' own builders.
    const own = files.find((f) => f.path === CALLERS);
    expect(tenantBuilders(CALLERS, own?.text ?? '').length).toBeGreaterThanOrEqual(2);
  });

  it('finds a builder planted anywhere: a literal, a typed value, a cast', () => {
    const planted = [
      'const t = { establishmentId: e.id, livemode, organizationId: o.id, plan, timezone, sector };',
      'const auth: AuthContext = { ...tenant, permissions: [] };',
      "const a = { ...tenant, credential: { kind: 'api_key', id }, permissions };",
      'const b = row as Tenant;',
    ];
    for (const line of planted) expect(tenantBuilders('planted.ts', line), line).toHaveLength(1);
  });

  it("no other file reads an organisation's plan with a credential's establishment", () => {
    // A caller's plan comes with its tenant; a dashboard session reads its organisation's own
    // (accounts/login-sessions.ts: a session belongs to an organisation, not to an establishment).
    const joins = files.filter(
      (f) => f.path !== CALLERS && /JOIN\s+establishments\b/i.test(f.text) && /\bo\.plan\b|canceled_at IS NOT NULL/.test(f.text),
    );
    expect(joins.map((f) => f.path)).toEqual([]);
  });
});
