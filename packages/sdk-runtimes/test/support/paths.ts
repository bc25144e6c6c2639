import { resolve } from 'node:path';

export const PACKAGE_DIR = resolve(import.meta.dirname, '../..');
export const REPO_DIR = resolve(PACKAGE_DIR, '../..');
export const SDK_DIR = resolve(REPO_DIR, 'packages/sdk');
export const STEPS_SOURCE = resolve(PACKAGE_DIR, 'src/customer/steps.ts');
export const EDGE_RUNNER = resolve(PACKAGE_DIR, 'test/support/edge-runner.mjs');
