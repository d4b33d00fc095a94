/**
 * The compatibility rule, checked on every service's migrations (docs/upgrades.md): each migration added
 * after the baseline is plain SQL that only expands the schema, as PostgreSQL would run it, so release N
 * keeps serving while release N+1 migrates and after. The migrations before the baseline were released
 * before the rule; they are listed, not judged.
 */
import { describe, expect, it } from "vitest";
import { tokenVault } from "@auth-platform/runtime/session-token";
import { type MigrationEntry, POSTGRESQL_CONFIG, ruleBreaches, statementsOf } from "../src/migration-rule.js";
import { adminMigrations } from "../../admin/src/store/migrations.js";
import { identityMigrations } from "../../identity/src/store/migrations.js";
import { notificationMigrations } from "../../notification/src/store/migrations.js";
import { oauthMigrations } from "../../oauth/src/store/migrations.js";
import { organizationMigrations } from "../../organization/src/store/migrations.js";
import { sessionMigrations } from "../../session/src/store/migrations.js";
import { ssoMigrations } from "../../sso/src/store/migrations.js";

const MIGRATIONS: Record<string, MigrationEntry[]> = {
  admin: adminMigrations,
  identity: identityMigrations,
  notification: notificationMigrations,
  oauth: oauthMigrations,
  organization: organizationMigrations,
  session: sessionMigrations(tokenVault("rule-check-secret-0123456789-0123456789")),
  sso: ssoMigrations,
};

/** How many migrations each service had when the rule began; every one after them is checked. */
const BASELINE: Record<string, number> = { admin: 1, identity: 16, notification: 3, oauth: 1, organization: 7, session: 10, sso: 6 };

async function breachesOf(entry: MigrationEntry): Promise<string[]> {
  return ruleBreaches(entry, await statementsOf(entry, POSTGRESQL_CONFIG));
}

describe("the compatibility rule on every service's migrations", () => {
  for (const [service, migrations] of Object.entries(MIGRATIONS)) {
    it(`${service}: every migration after the baseline only expands the schema`, async () => {
      expect(migrations.length, "a migration was removed: released ones never are").toBeGreaterThanOrEqual(BASELINE[service] ?? 0);
      const breaches: string[] = [];
      for (const entry of migrations.slice(BASELINE[service])) {
        for (const breach of await breachesOf(entry)) breaches.push(`${entry.name}: ${breach}`);
      }
      expect(breaches).toEqual([]);
    });
  }

  it("would refuse the migrations older than the rule that broke it", async () => {
    const [, hashTokens] = MIGRATIONS.session ?? [];
    expect(hashTokens?.replaceTogether).toBeTruthy();
    expect(await breachesOf(hashTokens as MigrationEntry)).toEqual([expect.stringMatching(/runs code instead of plain SQL/)]);
    // The organization slugs made lower-case in place, and list-users' generated column on PostgreSQL.
    const byName = (list: MigrationEntry[] | undefined, name: string) => list?.find((m) => m.name === name) as MigrationEntry;
    const organizationBreaches = await Promise.all((MIGRATIONS.organization ?? []).map(breachesOf));
    expect(organizationBreaches.flat()).toContainEqual(expect.stringMatching(/^rewrites rows of a table in use/));
    expect(await breachesOf(byName(MIGRATIONS.identity, "0007-user-name-lower"))).toContainEqual(expect.stringMatching(/stored generated column/));
  });
});
