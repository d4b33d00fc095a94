import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{proto,services,gateway,charts,bench,deploy,web}/**/*.test.ts", "web/src/**/*.test.tsx"],
    exclude: ["**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start real processes and bind ports; two workers suit a 2-core machine.
    maxWorkers: 2,
    globalSetup: ["testing/global-setup.ts"],
  },
});
