/**
 * list-users' bounded total through the gateway: past ADMIN_LIST_USERS_COUNT_LIMIT matches the total is the
 * limit and totalIsLowerBound is true; within it the total is exact and the field absent.
 */
import { expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { PASSWORD, anAdmin } from "./admin-fixtures.js";

const platform = usePlatform({ env: { ADMIN_LIST_USERS_COUNT_LIMIT: "3" } });

it("counts up to the limit, says when the total is a lower bound, and pages past it", async () => {
  const admin = await anAdmin(platform);
  const tag = uniqueEmail("counted").split("@")[0]!;
  for (let i = 0; i < 5; i++) {
    const created = await admin.c.post("/admin/create-user", { email: `${tag}.${i}@example.com`, password: PASSWORD, name: `Counted ${i}`, role: "user" });
    expect(created.status).toBe(200);
  }
  const search = `searchField=email&searchOperator=starts_with&searchValue=${tag}`;
  const broad = await admin.c.get(`/admin/list-users?${search}&limit=2`);
  expect(broad.status).toBe(200);
  expect(broad.body).toMatchObject({ total: 3, totalIsLowerBound: true, limit: 2 });
  expect(broad.body.users).toHaveLength(2);
  // Paging goes on past the counted total.
  const last = await admin.c.get(`/admin/list-users?${search}&limit=2&offset=4`);
  expect(last.body.users.map((u: { email: string }) => u.email)).toHaveLength(1);

  const narrow = await admin.c.get(`/admin/list-users?${search}&filterField=name&filterValue=Counted%201`);
  expect(narrow.body).toMatchObject({ total: 1 });
  expect(narrow.body).not.toHaveProperty("totalIsLowerBound");
  const exactlyAtTheLimit = await admin.c.get(`/admin/list-users?${search}&filterField=name&filterOperator=lt&filterValue=Counted%203`);
  expect(exactlyAtTheLimit.body.total).toBe(3);
  expect(exactlyAtTheLimit.body).not.toHaveProperty("totalIsLowerBound");
});
