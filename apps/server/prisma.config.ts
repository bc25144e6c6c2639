import { defineConfig } from 'prisma/config';

// The server applies migrations itself (src/db/migrate.ts); this file serves `prisma generate`.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
