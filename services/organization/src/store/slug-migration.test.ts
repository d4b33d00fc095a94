/**
 * Migration 0002 on a database written by the previous release, whose slugs were case-sensitive: every slug
 * is lower-cased; of slugs that differ only in case the oldest organization keeps the plain one and the others
 * get "-" and the start of their id appended. Runs on SQLite and, when TEST_DATABASE_URL is set, on PostgreSQL.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "@auth-platform/runtime/store";
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../../../../testing/databases.js";
import { InvitationEntity, MemberEntity, OrganizationEntity } from "./entities.js";
import { organizationMigrations } from "./migrations.js";
import { openOrganizationStore } from "./mikro-organization-store.js";

const at = (day: number) => new Date(Date.UTC(2030, 0, day));

/** Released rows: ids chosen so the suffixes are known (mixed case, as ids are). */
const RELEASED = [
  { id: "NEWERax0000000000000000000000000", slug: "a-x", createdAt: at(3) },
  { id: "OLDESTax000000000000000000000000", slug: "A-x", createdAt: at(1) },
  { id: "MiddleAX000000000000000000000000", slug: "A-X", createdAt: at(2) },
  { id: "TIEbbbbb000000000000000000000000", slug: "B-y", createdAt: at(5) },
  { id: "TIEaaaaa000000000000000000000000", slug: "b-Y", createdAt: at(5) },
  { id: "ALONE000000000000000000000000000", slug: "Only-One", createdAt: at(4) },
  { id: "LOWER000000000000000000000000000", slug: "already-lower", createdAt: at(6) },
  { id: "LONGxxxx000000000000000000000000", slug: `L${"o".repeat(127)}`, createdAt: at(8) },
  { id: "longOLD0000000000000000000000000", slug: `l${"o".repeat(127)}`, createdAt: at(7) },
];

function suite(backend: "sqlite" | "default") {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  it("lower-cases every slug; a case clash keeps the oldest plain and suffixes the others", async () => {
    const db = await createTestDatabase("organization_slug_migration", backend);
    databases.push(db);
    const released = await openStore({ url: db.url, entities: [OrganizationEntity, MemberEntity, InvitationEntity], migrations: organizationMigrations.slice(0, 1) });
    const em = released.em();
    for (const row of RELEASED) em.create(OrganizationEntity, { ...row, name: row.slug, logo: null, metadata: "{}" });
    await em.flush();
    await released.close();

    const store = await openOrganizationStore(db.url);
    try {
      const slugOf = async (id: string) => (await store.findOrganization(id))!.slug;
      expect(await slugOf("OLDESTax000000000000000000000000")).toBe("a-x");
      expect(await slugOf("MiddleAX000000000000000000000000")).toBe("a-x-middleax");
      expect(await slugOf("NEWERax0000000000000000000000000")).toBe("a-x-newerax0");
      // Created at the same instant: the smaller id keeps the slug.
      expect(await slugOf("TIEaaaaa000000000000000000000000")).toBe("b-y");
      expect(await slugOf("TIEbbbbb000000000000000000000000")).toBe("b-y-tiebbbbb");
      expect(await slugOf("ALONE000000000000000000000000000")).toBe("only-one");
      expect(await slugOf("LOWER000000000000000000000000000")).toBe("already-lower");
      expect(await slugOf("longOLD0000000000000000000000000")).toBe(`l${"o".repeat(127)}`);
      const suffixed = await slugOf("LONGxxxx000000000000000000000000");
      expect(suffixed).toBe(`l${"o".repeat(118)}-longxxxx`);
      expect(suffixed).toHaveLength(128);
      expect((await store.findOrganizationBySlug("a-x"))!.id).toBe("OLDESTax000000000000000000000000");
    } finally {
      await store.close();
    }
  });
}

describe("organization slug migration (sqlite)", () => suite("sqlite"));
describe.skipIf(!TEST_DATABASE_URL)("organization slug migration (postgresql)", () => suite("default"));
