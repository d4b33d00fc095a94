import { describe, expect, it } from "vitest";
import { providerTokens } from "./provider-tokens.js";
import { checkProviderLink, linkProviderAccount, type ProviderProfile, signInWithProvider } from "./provider-sign-in.js";
import { aSignedUpUser, testRegistry, type TestRegistry } from "../../test/test-registry.js";
import { trustDevice } from "./trusted-devices.js";
import { errorCode } from "../../../../testing/error-code.js";

const client = { ipAddress: "203.0.113.9", userAgent: "provider test" };

function aProfile(overrides: Partial<ProviderProfile> = {}): ProviderProfile {
  return {
    providerId: "github",
    accountId: "gh-1",
    email: "Ada@Example.com",
    emailVerified: true,
    name: "Ada",
    accessToken: "gho_access",
    refreshToken: "ghr_refresh",
    scopes: ["read:user", "user:email"],
    ...overrides,
  };
}

const signIn = (deps: TestRegistry, profile: ProviderProfile, options: { trusted?: boolean; disableImplicitLinking?: boolean } = {}) =>
  signInWithProvider(deps, { profile, trusted: options.trusted ?? false, disableImplicitLinking: options.disableImplicitLinking ?? false, client });

async function verifiedUser(deps: TestRegistry, email = "ada@example.com") {
  const { user } = await aSignedUpUser(deps, { email });
  return (await deps.store.updateUser(user.id, { emailVerified: true }))!;
}

describe("sign-in with a provider profile", () => {
  it("creates a user and account on first sign-in (a registration), then finds the same user", async () => {
    const deps = testRegistry();
    const first = await signIn(deps, aProfile());
    expect(first.isNewUser).toBe(true);
    expect(first.user).toMatchObject({ email: "ada@example.com", emailVerified: true, name: "Ada" });
    expect(deps.sessions.of(first.user.id)).toHaveLength(1);
    const again = await signIn(deps, aProfile({ accessToken: "gho_second" }));
    expect(again.isNewUser).toBe(false);
    expect(again.user.id).toBe(first.user.id);
    expect((await providerTokens(deps, { userId: first.user.id, providerId: "github" })).accessToken).toBe("gho_second");
  });

  it("stores provider tokens sealed, never in the clear", async () => {
    const deps = testRegistry();
    const { user } = await signIn(deps, aProfile());
    const [account] = await deps.store.listAccounts(user.id);
    expect(account!.accessToken).not.toContain("gho_access");
    expect(account!.refreshToken).not.toContain("ghr_refresh");
    expect(account!.scope).toBe("read:user,user:email");
    const opened = await providerTokens(deps, { userId: user.id, providerId: "github" });
    expect(opened).toMatchObject({ accessToken: "gho_access", refreshToken: "ghr_refresh" });
  });

  it("links into an existing verified user when the provider vouches for the email", async () => {
    const deps = testRegistry();
    const user = await verifiedUser(deps);
    const result = await signIn(deps, aProfile());
    expect(result).toMatchObject({ isNewUser: false, user: { id: user.id } });
    expect((await deps.store.listAccounts(user.id)).map((a) => a.providerId)).toEqual(["credential", "github"]);
  });

  it("links an unvouched email only for a trusted provider", async () => {
    const deps = testRegistry();
    const user = await verifiedUser(deps);
    expect(await errorCode(signIn(deps, aProfile({ emailVerified: false })))).toBe("ACCOUNT_NOT_LINKED");
    expect((await signIn(deps, aProfile({ emailVerified: false }), { trusted: true })).user.id).toBe(user.id);
  });

  it("never links when implicit linking is disabled", async () => {
    const deps = testRegistry();
    await verifiedUser(deps);
    expect(await errorCode(signIn(deps, aProfile(), { disableImplicitLinking: true }))).toBe("ACCOUNT_NOT_LINKED");
    expect(await errorCode(signIn(deps, aProfile(), { disableImplicitLinking: true, trusted: true }))).toBe("ACCOUNT_NOT_LINKED");
  });

  it("never links into a local account whose email is unverified (pre-registration takeover), even for a trusted provider", async () => {
    const deps = testRegistry();
    // An attacker registers the victim's address first, with a password of their own.
    const { user: squatter } = await aSignedUpUser(deps, { email: "ada@example.com" });
    expect(await errorCode(signIn(deps, aProfile()))).toBe("ACCOUNT_NOT_LINKED");
    expect(await errorCode(signIn(deps, aProfile(), { trusted: true }))).toBe("ACCOUNT_NOT_LINKED");
    expect((await deps.store.listAccounts(squatter.id)).map((a) => a.providerId)).toEqual(["credential"]);
    expect(deps.sessions.of(squatter.id)).toHaveLength(1);
  });

  it("gives a banned user no session but BANNED_USER, until the ban expires", async () => {
    const deps = testRegistry();
    const { user } = await signIn(deps, aProfile());
    await deps.store.updateUser(user.id, { banned: true, banReason: "spam", banExpires: new Date(deps.now().getTime() + 60_000) });
    expect(await errorCode(signIn(deps, aProfile()))).toBe("BANNED_USER");
    expect(deps.sessions.of(user.id)).toHaveLength(1);
    deps.advance(60_001);
    expect((await signIn(deps, aProfile())).user.id).toBe(user.id);
  });

  it("single sign-on makes the user a member before any session; when it cannot, no session is left behind", async () => {
    const deps = testRegistry();
    const join = { organizationId: "org-1", role: "member" };
    const sso = (profile: ProviderProfile) => signInWithProvider(deps, { profile, trusted: false, disableImplicitLinking: false, client, sso: true, joinOrganization: join });

    deps.organizations.failRemove = true;
    await expect(sso(aProfile({ providerId: "acme" }))).rejects.toThrow("organization service unavailable");
    const created = await deps.store.findUserByEmail("ada@example.com");
    expect(deps.sessions.of(created!.id)).toHaveLength(0);

    deps.organizations.failRemove = false;
    const signedIn = await sso(aProfile({ providerId: "acme" }));
    expect(deps.organizations.members.get(`org-1/${signedIn.user.id}`)).toBe("member");
    expect(deps.sessions.of(signedIn.user.id)).toHaveLength(1);

    // A banned user joins nothing.
    await deps.store.updateUser(signedIn.user.id, { banned: true, banExpires: null });
    deps.organizations.members.clear();
    expect(await errorCode(sso(aProfile({ providerId: "acme" })))).toBe("BANNED_USER");
    expect(deps.organizations.members.size).toBe(0);
  });

  it("gives a user with two-factor on a challenge and no session; a trusted device of theirs lets them through", async () => {
    const deps = testRegistry();
    const { user } = await signIn(deps, aProfile());
    await deps.store.saveTwoFactor({ userId: user.id, secret: "unused", verified: true, lastTotpStep: null, createdAt: deps.now(), updatedAt: deps.now() }, []);
    await deps.store.activateTwoFactor(user.id, deps.now());
    const sessionsBefore = deps.sessions.of(user.id).length;
    const challenged = await signIn(deps, aProfile());
    expect(challenged.session).toBeUndefined();
    expect(challenged.challenge?.token).toBeTruthy();
    expect(deps.sessions.of(user.id)).toHaveLength(sessionsBefore);

    const device = await trustDevice(deps, user.id, {});
    const trusted = await signInWithProvider(deps, { profile: aProfile(), trusted: false, disableImplicitLinking: false, client, trustedDevice: device.token });
    expect(trusted.session?.userId).toBe(user.id);
    expect(trusted.trustedDevice?.token).toBeTruthy();
  });

  it("refuses a profile without a usable email", async () => {
    const deps = testRegistry();
    expect(await errorCode(signIn(deps, aProfile({ email: "" })))).toBe("USER_EMAIL_NOT_FOUND");
    expect(await errorCode(signIn(deps, aProfile({ email: "not-an-email" })))).toBe("USER_EMAIL_NOT_FOUND");
  });

  it.each(["javascript:alert(1)", "http://img.example/a.png", "data:image/svg+xml;base64,PHN2Zz4="])("drops the avatar %s: the user is created without an image", async (image) => {
    const deps = testRegistry();
    const { user } = await signIn(deps, aProfile({ image }));
    expect(user.image).toBeNull();
    expect((await signIn(deps, aProfile({ accountId: "gh-2", email: "grace@example.com", image: "https://avatars.example/g.png" }))).user.image).toBe(
      "https://avatars.example/g.png",
    );
  });
});

describe("linking a provider account to a signed-in user", () => {
  it("links, refuses the same provider twice and an account linked to another user, and renews a relink", async () => {
    const deps = testRegistry();
    const ada = await verifiedUser(deps);
    const bob = await verifiedUser(deps, "bob@example.com");
    const account = await linkProviderAccount(deps, ada.id, aProfile({ email: "ada@github.example" }));
    expect(account).toMatchObject({ providerId: "github", accountId: "gh-1", userId: ada.id });
    expect(await errorCode(linkProviderAccount(deps, bob.id, aProfile()))).toBe("SOCIAL_ACCOUNT_ALREADY_LINKED");
    expect(await errorCode(linkProviderAccount(deps, ada.id, aProfile({ accountId: "gh-2" })))).toBe("SOCIAL_ACCOUNT_ALREADY_LINKED");
    await linkProviderAccount(deps, ada.id, aProfile({ accessToken: "gho_renewed" }));
    expect((await providerTokens(deps, { userId: ada.id, providerId: "github" })).accessToken).toBe("gho_renewed");
    expect(await errorCode(linkProviderAccount(deps, "no-such-user", aProfile({ accountId: "gh-9" })))).toBe("USER_NOT_FOUND");
  });

  it("refuses at the start a provider the user already has, and only that", async () => {
    const deps = testRegistry();
    const ada = await verifiedUser(deps);
    await checkProviderLink(deps, ada.id, "github");
    await linkProviderAccount(deps, ada.id, aProfile({ email: "ada@github.example" }));
    expect(await errorCode(checkProviderLink(deps, ada.id, "github"))).toBe("SOCIAL_ACCOUNT_ALREADY_LINKED");
    await checkProviderLink(deps, ada.id, "gitlab");
    await checkProviderLink(deps, (await verifiedUser(deps, "bob@example.com")).id, "github");
  });
});
