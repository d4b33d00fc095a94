import { describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import { listAccounts, unlinkAccount } from "./accounts.js";
import { aSignedUpUser, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

describe("linked accounts", () => {
  it("lists a user's accounts oldest first, unlinks one from a fresh session, and never the last one", async () => {
    const deps = testRegistry();
    const { user, session } = await aSignedUpUser(deps);
    const caller = { sessionCreatedAt: session!.createdAt };
    deps.advance(1_000);
    await deps.store.createAccount({ id: newId(), accountId: "gh-1", providerId: "github", userId: user.id, password: null, createdAt: deps.now(), updatedAt: deps.now() });
    expect((await listAccounts(deps, user.id)).map((a) => a.providerId)).toEqual(["credential", "github"]);

    expect(await errorCode(unlinkAccount(deps, { userId: user.id, providerId: "google", caller }))).toBe("ACCOUNT_NOT_FOUND");
    expect(await errorCode(unlinkAccount(deps, { userId: user.id, providerId: "github", accountId: "gh-2", caller }))).toBe("ACCOUNT_NOT_FOUND");
    await unlinkAccount(deps, { userId: user.id, providerId: "github", accountId: "gh-1", caller });
    expect((await listAccounts(deps, user.id)).map((a) => a.providerId)).toEqual(["credential"]);
    expect(await errorCode(unlinkAccount(deps, { userId: user.id, providerId: "credential", caller }))).toBe("YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT");
  });

  it("unlinking needs a session younger than the fresh age (SESSION_FRESH_AGE=0 turns the check off)", async () => {
    const deps = testRegistry({ SESSION_FRESH_AGE: "60" });
    const { user, session } = await aSignedUpUser(deps);
    await deps.store.createAccount({ id: newId(), accountId: "gh-1", providerId: "github", userId: user.id, password: null, createdAt: deps.now(), updatedAt: deps.now() });
    const caller = { sessionCreatedAt: session!.createdAt };
    deps.advance(60_001);
    expect(await errorCode(unlinkAccount(deps, { userId: user.id, providerId: "github", caller }))).toBe("SESSION_IS_NOT_FRESH");
    expect(await errorCode(unlinkAccount(deps, { userId: user.id, providerId: "github" }))).toBe("SESSION_IS_NOT_FRESH");

    const lax = testRegistry({ SESSION_FRESH_AGE: "0" });
    const { user: other } = await aSignedUpUser(lax);
    await lax.store.createAccount({ id: newId(), accountId: "gh-2", providerId: "github", userId: other.id, password: null, createdAt: lax.now(), updatedAt: lax.now() });
    await unlinkAccount(lax, { userId: other.id, providerId: "github" });
    expect(await lax.store.listAccounts(other.id)).toHaveLength(1);
  });
});
