import { defineConfig } from "vitest/config";

const ALL = ["{proto,services,packages,gateway,charts,bench,deploy,web}/**/*.test.ts", "web/src/**/*.test.tsx"];

// The suites that boot the whole platform (testing/platform.ts: every service over mutual TLS, or the
// production build, or a browser against it). `make test-fast` runs everything else: unit, domain and
// one-service suites (services/*/test/harness-style, fake peers).
const WHOLE_PLATFORM = [
  "gateway/test/**/*.int.test.ts",
  "packages/node/test/**/*.int.test.ts",
  "web/test/**/*.browser.test.ts",
  "deploy/build.test.ts",
  "services/admin/test/admin-bootstrap.int.test.ts",
  "services/admin/test/admin-record-event.int.test.ts",
  "services/identity/test/hashing-capacity.int.test.ts",
  "services/identity/test/identity.int.test.ts",
  "services/organization/test/better-auth-import.int.test.ts",
  "services/runtime/test/internal-api-example.int.test.ts",
  "services/runtime/test/internal-api.int.test.ts",
];

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real processes and bind ports; two workers suit a 2-core machine.
    maxWorkers: 2,
    globalSetup: ["testing/global-setup.ts"],
    // Two disjoint projects: `vitest run` (make test) runs both, `vitest run --project fast` (make test-fast) one.
    projects: [
      { extends: true, test: { name: "fast", include: ALL, exclude: ["**/node_modules/**", ...WHOLE_PLATFORM] } },
      { extends: true, test: { name: "platform", include: WHOLE_PLATFORM } },
    ],
  },
});
