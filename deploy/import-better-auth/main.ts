/**
 * Operator command: moves a better-auth app's users, accounts, sessions, two-factor enrolments and (with its
 * organization plugin) organizations, teams, members and invitations into this platform's stores
 * (docs/importing-from-better-auth.md).
 *
 *   npm run import:better-auth -- --from <SQLite file or postgres:// URL> [--dry-run] [--batch-size 2000]
 *   node dist/import-better-auth.js --from ...                                     (from the build)
 *
 * The targets come from the services' own variables (IDENTITY_DATABASE_URL, SESSION_DATABASE_URL,
 * ORGANIZATION_DATABASE_URL, ORGANIZATION_ROLES, AUTH_SECRET, IDENTITY_TWO_FACTOR_KEYS, IDENTITY_USER_FIELDS); the old app's secret from
 * BETTER_AUTH_SECRET (and BETTER_AUTH_SECRETS, "version:secret,...", for versioned secrets), never a flag.
 */
import { parseArgs } from "node:util";
import { runMain } from "@auth-platform/runtime/main";
import { progressReporter } from "./progress.js";
import { DEFAULT_BATCH_SIZE, formatSummary, importBetterAuth, secretsFromEnv } from "./run.js";
import { UnknownSchemaError } from "./schema.js";

const USAGE = "usage: import-better-auth --from <SQLite file or postgres:// URL> [--dry-run] [--batch-size N] (BETTER_AUTH_SECRET: the old app's secret)";

runMain("import-better-auth", async () => {
  const { values } = parseArgs({ options: { from: { type: "string" }, "dry-run": { type: "boolean" }, "batch-size": { type: "string" } } });
  if (!values.from) throw new Error(USAGE);
  const batchSize = values["batch-size"] === undefined ? DEFAULT_BATCH_SIZE : Number(values["batch-size"]);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 20_000) throw new Error(`--batch-size: a whole number from 1 to 20000\n${USAGE}`);
  const progress = progressReporter();
  const summary = await importBetterAuth({
    from: values.from,
    env: process.env,
    secrets: secretsFromEnv(process.env),
    dryRun: values["dry-run"] ?? false,
    batchSize,
    progress: progress.update,
  }).catch((error: unknown) => {
    // The operator's answer is the message (what is missing, what was found), not a stack.
    if (!(error instanceof UnknownSchemaError)) throw error;
    process.stderr.write(`import-better-auth: ${error.message}\n`);
    process.exit(2);
  });
  progress.end();
  process.stdout.write(formatSummary(summary));
  process.exit(0);
});
