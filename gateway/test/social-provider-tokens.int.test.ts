/**
 * A social account's provider tokens through the current client's calls: getAccessToken answers the
 * stored access token (kept encrypted by identity), refreshToken renews it at the provider's token
 * endpoint with the stored refresh token and stores the new ones, accountInfo reads the provider's profile.
 * An admin impersonating the user gets none of them.
 */
import { describe, expect, it } from "vitest";
import { clientIn, postJson, signedInWithGoogle, useSocialPlatform } from "../../testing/social-platform.js";

const social = useSocialPlatform();

describe("provider tokens of a social account (current client)", () => {
  it("answers, refreshes and reads the profile of the signed-in user's Google account", async () => {
    const { account, client, google } = await signedInWithGoogle(social, "tokens");

    const stored = await client.getAccessToken({ accountId: google!.id });
    expect(stored.error).toBeNull();
    expect(stored.data?.accessToken).toEqual(expect.any(String));
    expect(stored.data?.accessToken).not.toContain("refreshed");
    // At rest the token is sealed, never the value the provider granted.
    const [row] = await social.platform.services.identity.deps.store.listAccounts(google!.userId);
    expect(row!.accessToken).not.toBe(stored.data?.accessToken);
    expect(row!.accessToken).not.toContain(stored.data!.accessToken);

    const before = social.tokens.requests.length;
    const refreshed = await client.refreshToken({ accountId: google!.id });
    expect(refreshed.error).toBeNull();
    expect(refreshed.data).toMatchObject({ accessToken: "refreshed-first-refresh-token", refreshToken: "rotated-refresh-token", providerId: "google" });
    const form = social.tokens.requests[before]!;
    expect(Object.fromEntries(form)).toMatchObject({
      grant_type: "refresh_token",
      refresh_token: "first-refresh-token",
      client_id: social.idp.clientId,
      client_secret: social.idp.clientSecret,
    });
    expect((await client.getAccessToken({ accountId: google!.id })).data?.accessToken).toBe("refreshed-first-refresh-token");

    const info = await client.accountInfo({ query: { accountId: google!.id } });
    expect(info.error).toBeNull();
    expect(info.data?.user).toMatchObject({ id: account.sub, email: account.email, name: account.name, emailVerified: true });
  });

  it("another user's account id is not found: 400 ACCOUNT_NOT_FOUND", async () => {
    const { google: owned } = await signedInWithGoogle(social, "owner");
    const otherClient = clientIn(social, social.browser());
    await otherClient.signUp.email({ email: social.anAccount("other").email, password: "correct horse battery", name: "O" });
    for (const { error } of [await otherClient.refreshToken({ accountId: owned!.id }), await otherClient.accountInfo({ query: { accountId: owned!.id } })]) {
      expect(error).toMatchObject({ status: 400, code: "ACCOUNT_NOT_FOUND" });
    }
  });

  it("an admin impersonating the user reads neither the tokens nor the profile: 403, and the tokens stay unrefreshed", async () => {
    const { client: ownerClient, google } = await signedInWithGoogle(social, "impersonated");

    const admin = social.browser();
    const adminClient = clientIn(social, admin);
    const adminEmail = social.anAccount("admin").email;
    const { data: signedUp } = await adminClient.signUp.email({ email: adminEmail, password: "correct horse battery", name: "A" });
    await social.platform.services.identity.deps.store.updateUser(signedUp!.user.id, { role: "admin" });
    await adminClient.signIn.email({ email: adminEmail, password: "correct horse battery" });
    const base = social.platform.baseURL;
    const origin = new URL(base).origin;
    expect((await postJson(admin, `${base}/admin/impersonate-user`, { userId: google!.userId }, origin)).status).toBe(200);

    const refreshesBefore = social.tokens.requests.length;
    for (const { status, body } of [
      await postJson(admin, `${base}/get-access-token`, { accountId: google!.id }, origin),
      await postJson(admin, `${base}/refresh-token`, { accountId: google!.id }, origin),
      await postJson(admin, `${base}/get-access-token`, { providerId: "google" }, origin),
    ]) {
      expect(status).toBe(403);
      expect(body).toMatchObject({ code: "PROVIDER_ACCOUNTS_ARE_NOT_AVAILABLE_WHILE_IMPERSONATING" });
      expect(JSON.stringify(body)).not.toMatch(/token"\s*:/i);
    }
    const info = await admin.request(`${base}/account-info?accountId=${google!.id}`);
    expect(info.status).toBe(403);
    expect(social.tokens.requests.length).toBe(refreshesBefore);
    // The session is the user's all the same (what impersonation is for), and the user still gets their tokens.
    expect(((await (await admin.request(`${base}/get-session`)).json()) as { user: { id: string } }).user.id).toBe(google!.userId);
    expect((await ownerClient.getAccessToken({ accountId: google!.id })).error).toBeNull();
  });
});
