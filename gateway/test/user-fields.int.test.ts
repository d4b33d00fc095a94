/** Configured extra user fields (IDENTITY_USER_FIELDS) through the HTTP API. */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

const platform = usePlatform({
  env: { IDENTITY_USER_FIELDS: JSON.stringify({ phone: { type: "string", required: true }, age: { type: "number" }, plan: { type: "string", input: false } }) },
});

describe(`configured user fields (${backendLabel()})`, () => {
  it("stores and serves extra fields, requires required ones, refuses server-only and unknown ones", async () => {
    const client = platform.client();
    const ok = await client.post("/sign-up/email", { name: "F", email: uniqueEmail("fields"), password: "password-123", phone: "+44 20", age: 41 });
    expect(ok.body.user).toMatchObject({ phone: "+44 20", age: 41 });
    expect((await client.get("/get-session")).body.user).toMatchObject({ phone: "+44 20", age: 41 });

    const base = { name: "F", password: "password-123" };
    expect(await platform.client().post("/sign-up/email", { ...base, email: uniqueEmail() })).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", message: "Missing field: phone" } });
    expect(await platform.client().post("/sign-up/email", { ...base, email: uniqueEmail(), phone: 5 })).toMatchObject({ status: 400, body: { message: "Invalid field phone: expected string" } });
    expect(await platform.client().post("/sign-up/email", { ...base, email: uniqueEmail(), phone: "1", plan: "enterprise" })).toMatchObject({ status: 400, body: { message: "Unknown field: plan" } });
    expect(await platform.client().post("/sign-up/email", { ...base, email: uniqueEmail(), phone: "1", isAdmin: true })).toMatchObject({ status: 400, body: { message: "Unknown field: isAdmin" } });

    expect((await client.post("/update-user", { age: 42 })).body).toEqual({ status: true });
    expect((await client.get("/get-session")).body.user).toMatchObject({ phone: "+44 20", age: 42 });
  });
});
