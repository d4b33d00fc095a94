/** identity's admin use cases on the memory store with the test registry's clock. */
import { describe, expect, it } from "vitest";
import { CREDENTIAL_PROVIDER } from "../store/identity-store.js";
import { banUser, createUser, setRole, unbanUser, userQueryOf } from "./admin-users.js";
import { requestPasswordReset, resetPassword } from "./password-reset.js";
import { signInEmail } from "./sign-in.js";
import { signUpEmail } from "./sign-up.js";
import { T0, type TestRegistry, testRegistry, tokenIn } from "../../test/test-registry.js";

describe("userQueryOf", () => {
  it("defaults: no search or filter, 100 per page, creation order", () => {
    expect(userQueryOf({})).toEqual({ limit: 100, offset: 0, countLimit: 0 });
    expect(userQueryOf({ countLimit: 10_000 })).toMatchObject({ countLimit: 10_000 });
    expect(() => userQueryOf({ countLimit: -1 })).toThrow("Invalid countLimit");
    expect(userQueryOf({ searchValue: "ada" })).toMatchObject({ search: { field: "email", operator: "contains", value: "ada" } });
    expect(userQueryOf({ filterValue: "a@example.com" })).toMatchObject({ filter: { field: "email", operator: "eq", value: "a@example.com" } });
  });

  it("reads a filter value as its field's type", () => {
    expect(userQueryOf({ filterField: "banned", filterValue: "true" }).filter?.value).toBe(true);
    expect(userQueryOf({ filterField: "emailVerified", filterValue: false }).filter?.value).toBe(false);
    expect(userQueryOf({ filterField: "createdAt", filterOperator: "gte", filterValue: String(T0) }).filter?.value).toEqual(new Date(T0));
    expect(userQueryOf({ filterField: "createdAt", filterValue: "2031-01-01T00:00:00Z" }).filter?.value).toEqual(new Date(T0));
    expect(userQueryOf({ filterField: "role", filterValue: 5 }).filter?.value).toBe("5");
  });

  it("takes a list, or one value, for in and not_in, and text operators on text fields", () => {
    expect(userQueryOf({ filterField: "role", filterOperator: "in", filterValue: ["admin", "user"] }).filter).toEqual({ field: "role", operator: "in", value: ["admin", "user"] });
    expect(userQueryOf({ filterField: "role", filterOperator: "not_in", filterValue: "admin" }).filter).toEqual({ field: "role", operator: "not_in", value: ["admin"] });
    expect(userQueryOf({ filterField: "createdAt", filterOperator: "in", filterValue: [T0, String(T0)] }).filter?.value).toEqual([new Date(T0), new Date(T0)]);
    expect(userQueryOf({ filterField: "role", filterOperator: "contains", filterValue: "adm" }).filter).toEqual({ field: "role", operator: "contains", value: "adm" });
    expect(userQueryOf({ filterField: "email", filterOperator: "ends_with", filterValue: "@example.com" }).filter?.operator).toBe("ends_with");
  });

  it.each([
    [{ searchOperator: "regex", searchValue: "x" }, /searchOperator/],
    [{ filterField: "password", filterValue: "x" }, /filterField/],
    [{ filterField: "banned", filterValue: "yes" }, /boolean/],
    [{ filterField: "banned", filterOperator: "lt", filterValue: "true" }, /boolean takes eq or ne/],
    [{ filterField: "updatedAt", filterValue: "soon" }, /date/],
    [{ filterField: "role", filterOperator: "like", filterValue: "a" }, /filterOperator "like"/],
    [{ filterField: "createdAt", filterOperator: "contains", filterValue: "2024" }, /filterOperator "contains" for createdAt/],
    [{ filterField: "banned", filterOperator: "in", filterValue: [true] }, /boolean takes eq or ne/],
    [{ filterField: "role", filterOperator: "eq", filterValue: ["admin"] }, /filterValue for role: a list takes filterOperator in or not_in/],
    [{ filterField: "role", filterOperator: "contains", filterValue: ["admin"] }, /filterValue for role: a list/],
    [{ filterField: "role", filterOperator: "in", filterValue: [] }, /filterValue for role: in takes from 1 to 100 values/],
    [{ filterField: "role", filterOperator: "not_in", filterValue: Array.from({ length: 101 }, (_, i) => `r${i}`) }, /filterValue for role: not_in takes from 1 to 100/],
    [{ filterField: "role", filterOperator: "in", filterValue: ["admin", { x: 1 }] }, /filterValue for role: in takes strings or numbers/],
    [{ filterField: "createdAt", filterOperator: "in", filterValue: ["soon"] }, /date/],
    [{ sortBy: "password" }, /sortBy/],
    [{ sortDirection: "up" }, /sortDirection/],
    [{ limit: 1001 }, /limit/],
    [{ offset: -1 }, /offset/],
  ])("refuses %o", (input, message) => {
    expect(() => userQueryOf(input)).toThrowError(message);
  });
});

describe("admin user changes", () => {
  it("create, role, ban with expiry on the clock, sign-in refused then cleared, unban", async () => {
    const deps = testRegistry();
    const user = await createUser(deps, { email: "Eve@Example.com", password: "password-123", name: "Eve", role: "user", extraFields: {} });
    expect(user).toMatchObject({ email: "eve@example.com", role: "user", banned: false });
    await expect(createUser(deps, { email: "eve@example.com", password: "password-123", name: "Eve", role: "user", extraFields: {} })).rejects.toMatchObject({
      code: "USER_ALREADY_EXISTS",
    });
    await expect(setRole(deps, "nobody", "admin")).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
    expect((await setRole(deps, user.id, " editor ")).role).toBe("editor");

    const banned = await banUser(deps, { userId: user.id, expiresInSeconds: 60 });
    expect(banned).toMatchObject({ banned: true, banReason: "No reason", banExpires: new Date(deps.now().getTime() + 60_000) });
    const signIn = () => signInEmail(deps, { email: "eve@example.com", password: "password-123", rememberMe: true, client: {} });
    await expect(signIn()).rejects.toMatchObject({ code: "BANNED_USER", fields: { banExpires: banned.banExpires!.toISOString() } });
    deps.advance(60_001);
    expect((await signIn()).user).toMatchObject({ banned: false, banReason: null, banExpires: null });

    await banUser(deps, { userId: user.id, reason: "abuse" });
    expect(deps.sessions.of(user.id)).toEqual([]);
    // The session service holds the banned copy, so a sign-in that read the user before the ban gets no session.
    expect(deps.sessions.copies.get(user.id)).toMatchObject({ banned: true, banReason: "abuse" });
    expect((await unbanUser(deps, user.id)).banned).toBe(false);
    await expect(signIn()).resolves.toBeTruthy();
  });

  it("a weaker ban (SCIM's deactivation) keeps an admin's ban in force, and lifts only its own", async () => {
    const deps = testRegistry();
    const user = await createUser(deps, { email: "mal@example.com", password: "password-123", name: "Mal", role: "user", extraFields: {} });
    const scim = "Deactivated by SCIM";
    // Over an admin's ban: the ban stays as the admin set it.
    await banUser(deps, { userId: user.id, reason: "abuse", expiresInSeconds: 3600 });
    const kept = await banUser(deps, { userId: user.id, reason: scim, keepExisting: true });
    expect(kept).toMatchObject({ banned: true, banReason: "abuse" });
    expect((await unbanUser(deps, user.id, { onlyIfReason: scim })).banned).toBe(true);
    // Alone, it bans, and reactivation lifts it.
    await unbanUser(deps, user.id);
    expect(await banUser(deps, { userId: user.id, reason: scim, keepExisting: true })).toMatchObject({ banned: true, banReason: scim });
    expect(deps.sessions.of(user.id)).toEqual([]);
    expect((await unbanUser(deps, user.id, { onlyIfReason: scim })).banned).toBe(false);
  });
});

describe("a user an admin creates without a password (better-auth 1.7)", () => {
  /** Counts the hasher's calls: a sign-in costs one verification, against a stored hash or the dummy one. */
  function counted(deps: TestRegistry) {
    const calls = { hash: 0, verify: 0, verifyNone: 0 };
    const { hash, verify, verifyNone } = deps.passwords;
    deps.passwords.hash = (...args) => {
      calls.hash++;
      return hash(...args);
    };
    deps.passwords.verify = (...args) => {
      calls.verify++;
      return verify(...args);
    };
    deps.passwords.verifyNone = (...args) => {
      calls.verifyNone++;
      return verifyNone(...args);
    };
    return calls;
  }
  const signIn = (deps: TestRegistry, email: string, password: string) => signInEmail(deps, { email, password, rememberMe: true, client: {} });

  it("has no credential account and no hash was made; sign-in with any password is the unknown user's failure, dummy hash included", async () => {
    const deps = testRegistry();
    const calls = counted(deps);
    const user = await createUser(deps, { email: "Nopass@Example.com", name: "No Pass", extraFields: {} });
    expect(user).toMatchObject({ email: "nopass@example.com", role: "user", emailVerified: false });
    expect(await deps.store.listAccounts(user.id)).toEqual([]);
    expect(calls.hash).toBe(0);
    for (const password of ["password-123", "", "x".repeat(128)]) {
      await expect(signIn(deps, "nopass@example.com", password)).rejects.toMatchObject({ code: "INVALID_EMAIL_OR_PASSWORD" });
    }
    expect(calls).toEqual({ hash: 0, verify: 0, verifyNone: 3 });
    await expect(signIn(deps, "nobody@example.com", "password-123")).rejects.toMatchObject({ code: "INVALID_EMAIL_OR_PASSWORD" });
    expect(calls).toEqual({ hash: 0, verify: 0, verifyNone: 4 });
    expect(deps.sessions.of(user.id)).toEqual([]);
  });

  it("a password reset through the mailed link creates the credential account; sign-in then works", async () => {
    const deps = testRegistry();
    const user = await createUser(deps, { email: "nopass@example.com", name: "No Pass", extraFields: {} });
    await requestPasswordReset(deps, { email: "nopass@example.com" });
    await deps.processMailRequests();
    const token = tokenIn(deps.mail.link("nopass@example.com", "password-reset"));
    await resetPassword(deps, { token, newPassword: "chosen-password-1" });
    expect((await deps.store.listAccounts(user.id)).map((a) => a.providerId)).toEqual([CREDENTIAL_PROVIDER]);
    expect((await signIn(deps, "nopass@example.com", "chosen-password-1")).user).toMatchObject({ id: user.id });
  });

  it("a password given is checked as before, an empty one too; no role is the configured default role, or none when switched off", async () => {
    const deps = testRegistry();
    for (const password of ["", "short"]) {
      await expect(createUser(deps, { email: "p@example.com", password, name: "P", extraFields: {} })).rejects.toMatchObject({ code: "PASSWORD_TOO_SHORT" });
    }
    expect(await deps.store.findUserByEmail("p@example.com")).toBeNull();
    const withPassword = await createUser(deps, { email: "p@example.com", password: "password-123", name: "P", extraFields: {} });
    expect(withPassword.role).toBe("user");
    expect((await signIn(deps, "p@example.com", "password-123")).user).toMatchObject({ id: withPassword.id });
    await expect(createUser(deps, { email: "r@example.com", name: "R", role: " ", extraFields: {} })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect((await createUser(testRegistry({ IDENTITY_DEFAULT_ROLE: "member" }), { email: "m@example.com", name: "M", extraFields: {} })).role).toBe("member");
    expect((await createUser(testRegistry({ IDENTITY_DEFAULT_ROLE: "" }), { email: "m@example.com", name: "M", extraFields: {} })).role).toBeNull();
  });
});

describe("the default role of new users", () => {
  it("is user, configurable, and can be switched off", async () => {
    const signUp = (env: Record<string, string>) =>
      signUpEmail(testRegistry(env), { name: "N", email: "n@example.com", password: "password-123", extraFields: { role: "admin" }, rememberMe: true, client: {} });
    expect((await signUp({})).user.role).toBe("user");
    expect((await signUp({ IDENTITY_DEFAULT_ROLE: "member" })).user.role).toBe("member");
    expect((await signUp({ IDENTITY_DEFAULT_ROLE: "" })).user.role).toBeNull();
  });
});
