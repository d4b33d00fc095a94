/**
 * list-users on every backend: the memory store (user-query.ts) and the SQL one (mikro-user-query.ts) must
 * agree on search (case-insensitive, wildcards literal), filters by type, NULLs, order, ties and paging.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import { aUser, anAccount } from "./identity-store.contract.js";
import type { IdentityStore, UserQuery, UserRecord } from "./identity-store.js";
import { compareUsers } from "./user-query.js";

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

export function userQueryContract(backend: string, open: () => Promise<IdentityStore>): void {
  describe(`list-users contract (${backend})`, () => {
    let store: IdentityStore;
    const tag = `q${newId().slice(0, 8).toLowerCase()}`;
    const people: UserRecord[] = [];
    beforeAll(async () => {
      store = await open();
      const rows: Array<Partial<UserRecord>> = [
        { name: "Zoe Adams", role: "admin", emailVerified: true },
        { name: "adam Smith", role: "user" },
        { name: "Bea 100%_off", role: null, banned: true, banReason: "spam" },
        { name: "Carl Adamson", role: "user", emailVerified: true },
      ];
      for (const [i, row] of rows.entries()) {
        const user = aUser({
          ...row,
          email: `${row.name!.split(" ")[0]!.toLowerCase()}.${tag}@example.com`,
          createdAt: new Date(T0 + i * 1000),
          updatedAt: new Date(T0 + i * 1000),
        });
        await store.createUserWithAccount(user, anAccount(user));
        people.push(user);
      }
    });
    afterAll(async () => {
      await store?.close();
    });

    const names = async (query: Partial<UserQuery>) => {
      const { users, total } = await store.listUsers({
        limit: 100,
        offset: 0,
        countLimit: 0,
        ...query,
        search: query.search ?? { field: "email", operator: "contains", value: tag },
      });
      return { names: users.map((u) => u.name), total };
    };

    it("searches name case-insensitively with contains, starts_with and ends_with; wildcards are literal", async () => {
      const inTag = (value: string, operator: "contains" | "starts_with" | "ends_with") =>
        store.listUsers({ limit: 100, offset: 0, countLimit: 0, search: { field: "name", operator, value } }).then((r) =>
          r.users
            .filter((u) => u.email.includes(tag))
            .map((u) => u.name)
            .sort(),
        );
      expect(await inTag("ADAM", "contains")).toEqual(["Carl Adamson", "Zoe Adams", "adam Smith"].sort());
      expect(await inTag("adam", "starts_with")).toEqual(["adam Smith"]);
      expect(await inTag("SON", "ends_with")).toEqual(["Carl Adamson"]);
      expect(await inTag("100%_", "contains")).toEqual(["Bea 100%_off"]);
      expect(await inTag("%", "starts_with")).toEqual([]);
      expect(await inTag("_", "contains")).toEqual(["Bea 100%_off"]);
    });

    it("searches email by prefix", async () => {
      const { users } = await store.listUsers({ limit: 100, offset: 0, countLimit: 0, search: { field: "email", operator: "starts_with", value: `zoe.${tag}` } });
      expect(users.map((u) => u.id)).toEqual([people[0]!.id]);
    });

    it("filters strings, booleans and dates with each operator; a NULL matches no filter", async () => {
      expect((await names({ filter: { field: "role", operator: "eq", value: "user" } })).total).toBe(2);
      expect((await names({ filter: { field: "role", operator: "ne", value: "user" } })).names).toEqual(["Zoe Adams"]);
      expect((await names({ filter: { field: "banned", operator: "eq", value: true } })).names).toEqual(["Bea 100%_off"]);
      expect((await names({ filter: { field: "emailVerified", operator: "ne", value: true } })).total).toBe(2);
      expect((await names({ filter: { field: "emailVerified", operator: "ne", value: false } })).names).toEqual(["Zoe Adams", "Carl Adamson"]);
      expect((await names({ filter: { field: "banned", operator: "ne", value: true } })).names).toEqual(["Zoe Adams", "adam Smith", "Carl Adamson"]);
      expect((await names({ filter: { field: "createdAt", operator: "gte", value: new Date(T0 + 2000) } })).names).toEqual(["Bea 100%_off", "Carl Adamson"]);
      expect((await names({ filter: { field: "createdAt", operator: "lt", value: new Date(T0 + 1000) } })).names).toEqual(["Zoe Adams"]);
      expect((await names({ filter: { field: "createdAt", operator: "lte", value: new Date(T0 + 1000) } })).total).toBe(2);
    });

    it("filters text with contains, starts_with and ends_with as search does: case-insensitive, wildcards literal", async () => {
      // Both plans: the walk (no count limit) and the matches read first (a count limit).
      const matching = async (filter: UserQuery["filter"]) => {
        const [walked, counted] = [await names({ filter }), await names({ filter, countLimit: 100 })];
        expect(counted.names, JSON.stringify(filter)).toEqual(walked.names);
        return walked.names;
      };
      expect(await matching({ field: "role", operator: "contains", value: "DMI" })).toEqual(["Zoe Adams"]);
      expect(await matching({ field: "name", operator: "contains", value: "ADAM" })).toEqual(["Zoe Adams", "adam Smith", "Carl Adamson"]);
      expect(await matching({ field: "name", operator: "starts_with", value: "Adam" })).toEqual(["adam Smith"]);
      expect(await matching({ field: "name", operator: "ends_with", value: "SON" })).toEqual(["Carl Adamson"]);
      expect(await matching({ field: "email", operator: "starts_with", value: "BEA." })).toEqual(["Bea 100%_off"]);
      expect(await matching({ field: "name", operator: "contains", value: "0%_o" })).toEqual(["Bea 100%_off"]);
      expect(await matching({ field: "name", operator: "contains", value: "_" })).toEqual(["Bea 100%_off"]);
      expect(await matching({ field: "name", operator: "starts_with", value: "%" })).toEqual([]);
      expect(await matching({ field: "role", operator: "contains", value: "%" })).toEqual([]);
      expect(await matching({ field: "role", operator: "ends_with", value: "_" })).toEqual([]);
      expect(await matching({ field: "role", operator: "starts_with", value: "!" })).toEqual([]);
    });

    it("filters with in and not_in: exact values of the field's type; a NULL matches neither", async () => {
      const matching = async (filter: UserQuery["filter"]) => {
        const [walked, counted] = [await names({ filter }), await names({ filter, countLimit: 100 })];
        expect(counted.names, JSON.stringify(filter)).toEqual(walked.names);
        return walked.names;
      };
      expect(await matching({ field: "role", operator: "in", value: ["admin", "user"] })).toEqual(["Zoe Adams", "adam Smith", "Carl Adamson"]);
      expect(await matching({ field: "role", operator: "in", value: ["ADMIN", "adm%"] })).toEqual([]);
      expect(await matching({ field: "role", operator: "not_in", value: ["admin"] })).toEqual(["adam Smith", "Carl Adamson"]);
      expect(await matching({ field: "id", operator: "in", value: [people[1]!.id, people[3]!.id] })).toEqual(["adam Smith", "Carl Adamson"]);
      expect(await matching({ field: "createdAt", operator: "in", value: [new Date(T0), new Date(T0 + 2000)] })).toEqual(["Zoe Adams", "Bea 100%_off"]);
      expect(await matching({ field: "createdAt", operator: "not_in", value: [new Date(T0)] })).toEqual(["adam Smith", "Bea 100%_off", "Carl Adamson"]);
    });

    it("sorts in either direction with NULLs last ascending, ties by id, and pages without overlap", async () => {
      expect((await names({ sort: { field: "createdAt", direction: "desc" } })).names).toEqual(["Carl Adamson", "Bea 100%_off", "adam Smith", "Zoe Adams"]);
      expect((await names({})).names).toEqual(["Zoe Adams", "adam Smith", "Bea 100%_off", "Carl Adamson"]);
      const byRole = (await names({ sort: { field: "role", direction: "asc" } })).names;
      expect(byRole[0]).toBe("Zoe Adams");
      expect(byRole[3]).toBe("Bea 100%_off");
      expect((await names({ sort: { field: "role", direction: "desc" } })).names[0]).toBe("Bea 100%_off");
      const pages = [];
      for (let offset = 0; offset < 4; offset += 3) pages.push(...(await names({ sort: { field: "role", direction: "asc" }, limit: 3, offset })).names);
      expect(pages.sort()).toEqual(people.map((p) => p.name).sort());
      const page = await names({ limit: 1, offset: 1 });
      expect(page).toEqual({ names: ["adam Smith"], total: 4 });
    });

    it("counts up to the count limit: past it the total is the limit, flagged as a lower bound", async () => {
      const counted = (countLimit: number, query: Partial<UserQuery> = {}) =>
        store
          .listUsers({ limit: 1, offset: 0, countLimit, search: { field: "email", operator: "contains", value: tag }, ...query })
          .then(({ users, total, totalIsLowerBound }) => ({ page: users.length, total, totalIsLowerBound }));
      expect(await counted(0)).toEqual({ page: 1, total: 4, totalIsLowerBound: false });
      expect(await counted(4)).toEqual({ page: 1, total: 4, totalIsLowerBound: false });
      expect(await counted(3)).toEqual({ page: 1, total: 3, totalIsLowerBound: true });
      expect(await counted(1, { filter: { field: "role", operator: "eq", value: "user" } })).toEqual({ page: 1, total: 1, totalIsLowerBound: true });
      expect(await counted(2, { filter: { field: "role", operator: "eq", value: "user" }, offset: 5 })).toEqual({ page: 0, total: 2, totalIsLowerBound: false });
    });

    it("answers the same pages whether the matches fit under the count limit or not", async () => {
      // Under the limit the SQL store sorts the matches it read; past it, it walks the sort order.
      const sorts: Array<UserQuery["sort"]> = [
        undefined,
        { field: "name", direction: "asc" },
        { field: "name", direction: "desc" },
        { field: "role", direction: "asc" },
        { field: "role", direction: "desc" },
        { field: "createdAt", direction: "desc" },
        { field: "email", direction: "asc" },
      ];
      const filters: Array<UserQuery["filter"]> = [undefined, { field: "emailVerified", operator: "ne", value: true }];
      for (const sort of sorts) {
        for (const filter of filters) {
          for (const [limit, offset] of [
            [100, 0],
            [2, 0],
            [2, 1],
            [2, 2],
            [1, 3],
          ] as const) {
            const query = { limit, offset, sort, filter, search: { field: "email" as const, operator: "contains" as const, value: tag } };
            const exact = await store.listUsers({ ...query, countLimit: 100 });
            const bounded = await store.listUsers({ ...query, countLimit: 1 });
            const expected = people
              .filter((p) => !filter || !p.emailVerified)
              .sort(compareUsers({ ...query, countLimit: 0 }))
              .slice(offset, offset + limit)
              .map((p) => p.name);
            expect(
              exact.users.map((u) => u.name),
              JSON.stringify({ sort, filter, limit, offset }),
            ).toEqual(expected);
            expect(
              bounded.users.map((u) => u.name),
              JSON.stringify({ sort, filter, limit, offset }),
            ).toEqual(expected);
            expect(exact).toMatchObject({ total: filter ? 2 : 4, totalIsLowerBound: false });
            expect(bounded).toMatchObject({ total: 1, totalIsLowerBound: true });
          }
        }
      }
    });

    it("past the count limit, finds matches that come late in the sort order", async () => {
      // 45 verified users sort first by name, email and creation; the two unverified ones come last. Past the
      // count limit the SQL store reads the page in the sort order, not out of the matches it counted.
      const late = `l${newId().slice(0, 8).toLowerCase()}`;
      for (let i = 0; i < 45; i += 1) {
        const user = aUser({
          name: `Aaron ${String(i).padStart(2, "0")}`,
          email: `a${i}.${late}@example.com`,
          emailVerified: true,
          createdAt: new Date(T0 - 100_000 + i),
          updatedAt: new Date(T0),
        });
        await store.createUserWithAccount(user, anAccount(user));
      }
      for (const [i, name] of ["Zed One", "Zed Two"].entries()) {
        const user = aUser({ name, email: `z${i}.${late}@example.com`, emailVerified: false, createdAt: new Date(T0 + i), updatedAt: new Date(T0) });
        await store.createUserWithAccount(user, anAccount(user));
      }
      const search = { field: "email" as const, operator: "contains" as const, value: late };
      const filter = { field: "emailVerified" as const, operator: "ne" as const, value: true };
      const sorts: Array<UserQuery["sort"]> = [undefined, { field: "name", direction: "asc" }, { field: "email", direction: "asc" }, { field: "createdAt", direction: "asc" }];
      for (const sort of sorts) {
        for (const [offset, expected] of [
          [0, "Zed One"],
          [1, "Zed Two"],
        ] as const) {
          const page = await store.listUsers({ limit: 1, offset, countLimit: 1, search, filter, sort });
          expect(
            page.users.map((u) => u.name),
            JSON.stringify({ sort, offset }),
          ).toEqual([expected]);
          expect(page).toMatchObject({ total: 1, totalIsLowerBound: true });
        }
      }
      // In the other direction the unverified ones come first, within the first rows read.
      const first = await store.listUsers({ limit: 2, offset: 0, countLimit: 1, search, filter, sort: { field: "name", direction: "desc" } });
      expect(first.users.map((u) => u.name)).toEqual(["Zed Two", "Zed One"]);
    });

    it("lists each user's last sign-in, the newest of those noted, on both plans, without moving the user", async () => {
      const [zoe, adam] = people as [UserRecord, UserRecord];
      await store.recordSignIn(zoe.id, new Date(T0 + 60_000));
      await store.recordSignIn(adam.id, new Date(T0 + 120_000));
      // An older sign-in noted late (two at once) does not take the newer one back.
      await store.recordSignIn(adam.id, new Date(T0 + 90_000));
      await store.recordSignIn("no-such-user", new Date(T0));
      const search = { field: "email" as const, operator: "contains" as const, value: tag };
      // countLimit 0 walks the sort order; a bounded count with a search reads the matches first.
      for (const countLimit of [0, 100]) {
        const page = await store.listUsers({ limit: 100, offset: 0, countLimit, search });
        expect(page.lastSignInAt).toEqual({ [zoe.id]: new Date(T0 + 60_000), [adam.id]: new Date(T0 + 120_000) });
      }
      expect(await store.findUserById(adam.id)).toEqual(adam);
      expect(await store.findSessionOutbox(adam.id)).toBeNull();
    });

    it("reads every field of the matched users back as it was written", async () => {
      const { users } = await store.listUsers({ limit: 100, offset: 0, countLimit: 100, search: { field: "email", operator: "contains", value: tag } });
      expect(users.length).toBe(4);
      for (const user of users) expect(user).toEqual(await store.findUserById(user.id));
    });
  });
}
