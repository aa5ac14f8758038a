import { defineConfig } from 'vitest/config';
import { findFerretdb } from './api/test/ferretdb.ts';

/** The HTTP integration suites that run a second time on the MongoDB store (on FerretDB). */
const ON_MONGODB = ['api/reviews/reviews.test.ts', 'api/widgets/widgets.test.ts', 'api/auth/auth.test.ts', 'api/limits/rate-limit.test.ts', 'api/dashboard/dashboard.test.ts', 'api/dashboard/reviews.test.ts', 'api/dashboard/products.test.ts', 'api/dashboard/overview.test.ts', 'api/dashboard/widgets.test.ts', 'api/dashboard/memberships.test.ts', 'api/webhooks/webhooks.test.ts', 'api/webhooks/limits.test.ts', 'api/widgets/product-widgets.test.ts', 'api/invitations/invitations.test.ts', 'api/invitations/link.test.ts', 'api/dashboard/invitations.test.ts', 'api/invitations/sender.test.ts'];

const ferretdb = findFerretdb();
if (ferretdb.bin === null && !process.env.CI) {
  process.stderr.write(`\n*** vitest project api-on-mongodb SKIPPED: FerretDB not found (${ferretdb.looked.join(', ')}); bash scripts/install-ferretdb.sh\n\n`);
}

export default defineConfig({
  test: {
    globalSetup: ['./api/test/global-setup.ts'],
    // A hang is still caught; a slow test on a loaded 2-core machine (CI beside other work, load 10-20 seen) is not a failure.
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['api/**/*.test.ts', 'dashboard/**/*.test.ts', 'scripts/**/*.test.ts', 'schema/**/*.test.ts', 'widget/**/*.test.ts', 'widget/**/*.test.tsx'],
        },
      },
      // In CI a missing FerretDB fails the run in global-setup; elsewhere this project is left out, loudly (above).
      ...(ferretdb.bin !== null || process.env.CI
        ? [{ extends: true as const, test: { name: 'api-on-mongodb', include: ON_MONGODB, env: { TEST_STORE: 'mongodb' } } }]
        : []),
    ],
  },
});
