// Runs a bundled customer script inside edge-runtime's EdgeRuntime VM (Vercel's edge-like
// sandbox: web APIs only, no `process`, no `require`), the way an edge function would run it.
// Usage: node edge-runner.mjs <bundle.js>; settings come from this process's environment and are
// handed to the VM as globals. Prints the script's step lines and exits non-zero on any failure.
import { readFileSync } from 'node:fs';
import { EdgeRuntime } from 'edge-runtime';

const [bundle] = process.argv.slice(2);
if (!bundle) throw new Error('usage: edge-runner.mjs <bundle.js>');

const globals = {
  MERMA_API_KEY: process.env.MERMA_API_KEY ?? '',
  MERMA_BASE_URL: process.env.MERMA_BASE_URL ?? '',
  RECEIVER_URL: process.env.RECEIVER_URL ?? '',
};
const runtime = new EdgeRuntime({ extend: (context) => Object.assign(context, globals) });

// The sandbox must really be one: a script that works here works without Node's globals.
const leaked = ['process', 'require', 'module', '__dirname', 'window'].filter((name) => runtime.evaluate(`typeof ${name}`) !== 'undefined');
console.log(
  JSON.stringify(
    leaked.length
      ? { step: 'edge-sandbox', ok: false, error: `Node globals visible in the VM: ${leaked.join(', ')}` }
      : { step: 'edge-sandbox', ok: true },
  ),
);

runtime.evaluate(readFileSync(bundle, 'utf8'));
const ok = await runtime.evaluate('globalThis.__mermaResult');
process.exitCode = ok === true && leaked.length === 0 ? 0 : 1;
