/** Configured extra user fields: stored and served, required ones required, server-only and unknown ones ignored. */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

describe(`configured user fields (${backendLabel()})`, () => {
  const platform = usePlatform({
    env: {
      IDENTITY_USER_FIELDS: JSON.stringify({
        phone: { type: "string", required: true },
        age: { type: "number" },
        city: { type: "string" },
        beta: { type: "boolean" },
        plan: { type: "string", input: false },
      }),
    },
  });

  it("stores and serves extra fields, requires required ones, ignores server-only and unknown ones", async () => {
    const client = new TestClient(platform.baseURL);
    const ok = await client.post("/sign-up/email", { name: "F", email: uniqueEmail("fields"), password: "password-123", phone: "+44 20", age: 41 });
    expect(ok.body.user).toMatchObject({ phone: "+44 20", age: 41 });
    expect((await client.get("/get-session")).body.user).toMatchObject({ phone: "+44 20", age: 41 });

    const base = { name: "F", password: "password-123" };
    expect(await new TestClient(platform.baseURL).post("/sign-up/email", { ...base, email: uniqueEmail() })).toMatchObject({
      status: 400,
      body: { code: "VALIDATION_ERROR", message: "Missing field: phone" },
    });
    expect(await new TestClient(platform.baseURL).post("/sign-up/email", { ...base, email: uniqueEmail(), phone: 5 })).toMatchObject({
      status: 400,
      body: { message: "Invalid field phone: expected string" },
    });
    // Fields that are not inputs (server-only `plan`, unknown `isAdmin`, `role`) are ignored, never stored.
    const extras = new TestClient(platform.baseURL);
    const ignored = await extras.post("/sign-up/email", { ...base, email: uniqueEmail(), phone: "1", plan: "enterprise", isAdmin: true, role: "admin" });
    expect(ignored.status).toBe(200);
    for (const user of [ignored.body.user, (await extras.get("/get-session")).body.user]) {
      expect(user).toMatchObject({ phone: "1" });
      expect(Object.keys(user)).not.toContain("plan");
      expect(Object.keys(user)).not.toContain("isAdmin");
      // The admin field is served, with the configured default: never the request's value.
      expect(user.role).toBe("user");
    }

    expect((await client.post("/update-user", { age: 42, role: "admin", plan: "enterprise", isAdmin: true })).body).toEqual({ status: true });
    const updated = (await client.get("/get-session")).body.user;
    expect(updated).toMatchObject({ phone: "+44 20", age: 42 });
    expect(updated.role).toBe("user");
    expect(Object.keys(updated)).not.toContain("plan");
    expect(Object.keys(updated)).not.toContain("isAdmin");
  });

  it("keeps every one of concurrent updates of one user that set different fields", async () => {
    const client = new TestClient(platform.baseURL);
    await client.post("/sign-up/email", { name: "F", email: uniqueEmail("race"), password: "password-123", phone: "+1 212", age: 40, city: "Paris", beta: false });
    const stored = async (change: Record<string, unknown>) => {
      expect((await client.post("/update-user", change)).status).toBe(200);
      return (await client.get("/get-session")).body.user;
    };
    for (let round = 1; round <= 5; round++) {
      // Each request may read the user before the others have written: none may put back a value it read.
      const changes = [{ phone: `+44 ${round}` }, { age: 40 + round }, { city: `City ${round}` }, { beta: round % 2 === 1 }];
      const answers = await Promise.all(changes.map((change) => client.post("/update-user", change)));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      // Right after them, with no later update: the session service keeps the copy of the last write, whatever
      // order the copies arrived in (each write has its own updatedAt, even within one millisecond).
      expect((await client.get("/get-session")).body.user).toMatchObject(Object.assign({}, ...changes));
      expect(await stored({ name: `F${round}` })).toMatchObject(Object.assign({ name: `F${round}` }, ...changes));
    }
    await Promise.all([client.post("/update-user", { name: "G" }), client.post("/update-user", { age: 50 })]);
    expect(await stored({ beta: false })).toMatchObject({ name: "G", phone: "+44 5", age: 50, city: "City 5", beta: false });
  });
});
