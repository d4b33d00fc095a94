/**
 * Refuses fixed waits on the real clock in tests (`make lint`): a test that sleeps is slow when the machine is idle and
 * flaky when it is loaded. Tests wait on the test clock (testing/test-clock.ts), eventually() (testing/eventually.ts),
 * mailSettled() or an event the code emits. Scans *.test.ts(x), the helpers in testing/ and services' and gateway's test/.
 */
import { globSync, readFileSync } from "node:fs";

const TEST_FILES = ["**/*.test.ts", "**/*.test.tsx", "testing/**/*.ts", "*/test/**/*.ts", "services/*/test/**/*.ts"];
// eventually() is the one place that waits between its tries.
const ALLOWED = new Set(["testing/eventually.ts"]);

const FIXED_WAITS: { pattern: RegExp; what: string }[] = [
  { pattern: /setTimeout\(\s*(resolve|res|r|done|next|wake)\s*,/, what: "setTimeout(resolve, ms)" },
  { pattern: /new Promise\b.*\bsetTimeout\(/, what: "a promise that a timer resolves" },
  // A call of sleep(...); a declared member `sleep(ms: number): ...` (a test clock's, which moves fake time) is no call.
  { pattern: /(?<![\w.])sleep\s*\((?!\s*\w+\s*:)/, what: "sleep(...)" },
  { pattern: /\bsetTimeout\b[^;]*\bfrom\s+["'](node:)?timers\/promises["']/, what: "setTimeout from timers/promises" },
  { pattern: /\bscheduler\.wait\s*\(/, what: "scheduler.wait(...)" },
];

const files = globSync(TEST_FILES, { exclude: (name) => name === "node_modules" || name === "dist" || name === "test-artifacts" || name === "data" });
const findings: string[] = [];
for (const file of [...new Set(files)].sort()) {
  if (ALLOWED.has(file)) continue;
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const wait = FIXED_WAITS.find(({ pattern }) => pattern.test(line));
      if (wait) findings.push(`${file}:${index + 1}: ${wait.what}: ${line.trim()}`);
    });
}

if (findings.length > 0) {
  console.error(`fixed waits in tests (use the test clock, eventually(), mailSettled() or an event instead):\n${findings.join("\n")}`);
  process.exit(1);
}
console.log(`no fixed waits in ${files.length} test files`);
