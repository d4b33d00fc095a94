/**
 * The passkey rules on the memory store and the test clock, with real WebAuthn answers from the software
 * authenticator: where a passkey sign-in stops like a password one (an unverified address while verification
 * is required), whose session a registration belongs to, and when the last passkey may go.
 */
import { describe, expect, it } from "vitest";
import type { Caller } from "@auth-platform/runtime/caller";
import { newId } from "@auth-platform/runtime/random";
import { SoftwareAuthenticator } from "../../../../testing/software-authenticator.js";
import { aSignedUpUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { deletePasskey, finishPasskeyRegistration, renamePasskey, signInWithPasskey, startPasskeyAuthentication, startPasskeyRegistration } from "./passkeys.js";

const ORIGIN = "https://auth.example.com";

function callerOf(deps: TestRegistry, user: { id: string; email: string }, sessionId = newId()): Caller {
  return { sessionId, userId: user.id, email: user.email, emailVerified: false, sessionCreatedAt: deps.now() } as Caller;
}

/** A user with a passkey on `device`, registered from session `caller`. */
async function withPasskey(deps: TestRegistry) {
  const { user } = await aSignedUpUser(deps);
  const caller = callerOf(deps, user);
  const device = new SoftwareAuthenticator(ORIGIN, "auth.example.com");
  const ceremony = await startPasskeyRegistration(deps, { caller });
  const passkey = await finishPasskeyRegistration(deps, { caller, token: ceremony.token, response: JSON.stringify(device.create(JSON.parse(ceremony.options))) });
  return { user, caller, device, passkey };
}

async function signIn(deps: TestRegistry, device: SoftwareAuthenticator) {
  const ceremony = await startPasskeyAuthentication(deps);
  return signInWithPasskey(deps, { token: ceremony.token, response: JSON.stringify(device.get(JSON.parse(ceremony.options))), rememberMe: true, client: {}, language: "de" });
}

describe("passkeys", () => {
  it("a sign-in of an unverified address while verification is required stops, and mails a new link, as a password one", async () => {
    const deps = testRegistry({ IDENTITY_REQUIRE_EMAIL_VERIFICATION: "true" });
    const { user, device } = await withPasskey(deps);
    const before = deps.sessions.of(user.id).length;
    await expect(signIn(deps, device)).rejects.toMatchObject({ code: "EMAIL_NOT_VERIFIED" });
    expect(deps.sessions.of(user.id)).toHaveLength(before);
    expect(deps.mail.to(user.email, "email-verification").at(-1)?.language).toBe("de");

    await deps.store.markEmailVerified(user.id, user.email);
    const { session } = await signIn(deps, device);
    expect(session.userId).toBe(user.id);
  });

  it("a registration belongs to the session that started it, even another session of the same user", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps);
    const started = callerOf(deps, user);
    const ceremony = await startPasskeyRegistration(deps, { caller: started });
    const device = new SoftwareAuthenticator(ORIGIN, "auth.example.com");
    const otherSession = callerOf(deps, user);
    await expect(
      finishPasskeyRegistration(deps, { caller: otherSession, token: ceremony.token, response: JSON.stringify(device.create(JSON.parse(ceremony.options))) }),
    ).rejects.toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY" });
    expect(await deps.store.listPasskeys(user.id)).toEqual([]);
  });

  it("the last passkey goes when a password or a linked account remains, not when nothing else would sign the user in", async () => {
    const deps = testRegistry();
    const { user, passkey } = await withPasskey(deps);
    const [credential] = await deps.store.listAccounts(user.id);
    await deps.store.deleteAccount(credential!.id);
    await deps.store.createAccount({ id: newId(), accountId: "g-1", providerId: "google", userId: user.id, password: null, createdAt: deps.now(), updatedAt: deps.now() });
    await deletePasskey(deps, { userId: user.id }, passkey.id);
    expect(await deps.store.listPasskeys(user.id)).toEqual([]);

    const alone = await withPasskey(deps);
    for (const account of await deps.store.listAccounts(alone.user.id)) await deps.store.deleteAccount(account.id);
    await expect(deletePasskey(deps, { userId: alone.user.id }, alone.passkey.id)).rejects.toMatchObject({ code: "YOU_CANT_DELETE_YOUR_LAST_WAY_TO_SIGN_IN" });
    await expect(deletePasskey(deps, { userId: user.id }, alone.passkey.id)).rejects.toMatchObject({ code: "PASSKEY_NOT_FOUND" });
  });

  it("an admin impersonating the user renames and deletes none of the user's passkeys", async () => {
    const deps = testRegistry();
    const { user, passkey } = await withPasskey(deps);
    const admin = { userId: user.id, impersonatedBy: newId() };
    await expect(renamePasskey(deps, admin, passkey.id, "Mine now")).rejects.toMatchObject({ code: "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING" });
    await expect(deletePasskey(deps, admin, passkey.id)).rejects.toMatchObject({ code: "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING" });
    expect(await deps.store.listPasskeys(user.id)).toEqual([passkey]);
  });
});
