import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/dashboard.ts', 'src/roles.ts', 'src/station.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
});
