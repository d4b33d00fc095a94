/**
 * get-access-token answers a usable access token, as better-auth 1.7 does: once the stored token has expired
 * (or expires within five seconds) and the account holds a refresh token, it is renewed at the provider and
 * stored first; a token that has not expired is answered as stored, with no provider call. The provider
 * here is the real OpenID provider granting and renewing refresh tokens itself, so its userinfo endpoint
 * tells whether a token answered is one it accepts; the test clock ages tokens at the provider and the
 * platform alike.
 */
import { describe, expect, it } from "vitest";
import { postJson, signedInWithGoogle as signedIn, useSocialPlatform } from "../../testing/social-platform.js";

const social = useSocialPlatform({ refreshAtProvider: true });

/** The provider's access tokens live an hour (oidc-provider's default). */
const HOUR_MS = 60 * 60 * 1000;

const refreshRequests = () => social.tokens.requests.filter((form) => form.get("grant_type") === "refresh_token").length;

/** The account's stored tokens, opened as identity opens them. */
async function storedTokens(userId: string) {
  const { store, providerTokens } = social.platform.services.identity.deps;
  const [row] = await store.listAccounts(userId);
  return { row: row!, accessToken: providerTokens.open(row!.accessToken!, row!.id), refreshToken: providerTokens.open(row!.refreshToken!, row!.id) };
}

/** The token columns of an account row, to write back with one of them changed. */
const tokenColumns = ({ accessToken, refreshToken, idToken, accessTokenExpiresAt, refreshTokenExpiresAt, scope }: Awaited<ReturnType<typeof storedTokens>>["row"]) => ({
  accessToken,
  refreshToken,
  idToken,
  accessTokenExpiresAt,
  refreshTokenExpiresAt,
  scope,
});

describe("get-access-token renews an expired access token (better-auth 1.7 client)", () => {
  it("answers a token that has not expired as stored, without asking the provider", async () => {
    const { account, client, google } = await signedIn(social, "fresh");
    const before = refreshRequests();
    const { data, error } = await client.getAccessToken({ accountId: google.id });
    expect(error).toBeNull();
    expect(data?.accessToken).toBe((await storedTokens(google.userId)).accessToken);
    expect(new Date(data!.accessTokenExpiresAt!).getTime()).toBeGreaterThan(Date.now());
    expect(await social.idp.userinfo(data!.accessToken)).toMatchObject({ sub: account.sub });
    expect(refreshRequests()).toBe(before);
  });

  it("after expiry answers a renewed token the provider accepts, stores it, and does not renew it again", async () => {
    const { account, client, google } = await signedIn(social, "expired");
    const first = await client.getAccessToken({ accountId: google.id });
    const old = first.data!.accessToken;
    const oldRefresh = (await storedTokens(google.userId)).refreshToken;

    social.clock.advance(HOUR_MS + 60_000);
    expect(await social.idp.userinfo(old)).toBeNull();
    const before = refreshRequests();
    const renewed = await client.getAccessToken({ accountId: google.id });
    expect(renewed.error).toBeNull();
    expect(renewed.data?.accessToken).toEqual(expect.any(String));
    expect(renewed.data?.accessToken).not.toBe(old);
    expect(new Date(renewed.data!.accessTokenExpiresAt!).getTime()).toBeGreaterThan(Date.now() + HOUR_MS / 2);
    expect(await social.idp.userinfo(renewed.data!.accessToken)).toMatchObject({ sub: account.sub });
    expect(refreshRequests()).toBe(before + 1);
    expect(social.tokens.requests.at(-1)?.get("refresh_token")).toBe(oldRefresh);

    // Stored, sealed: the next call answers it from the account, with no second renewal.
    const stored = await storedTokens(google.userId);
    expect(stored.accessToken).toBe(renewed.data!.accessToken);
    expect(stored.row.accessTokenExpiresAt?.toISOString()).toBe(new Date(renewed.data!.accessTokenExpiresAt!).toISOString());
    const again = await client.getAccessToken({ accountId: google.id });
    expect(again.data?.accessToken).toBe(renewed.data!.accessToken);
    expect(refreshRequests()).toBe(before + 1);
  });

  it("renews a token that expires within five seconds; selected by provider too", async () => {
    const { account, flow, client, google } = await signedIn(social, "expiring");
    const first = await client.getAccessToken({ accountId: google.id });
    const expiresAt = new Date(first.data!.accessTokenExpiresAt!).getTime();

    social.clock.advance(expiresAt - Date.now() - 2_000);
    const before = refreshRequests();
    const { status, body } = await postJson(flow, `${social.platform.baseURL}/get-access-token`, { providerId: "google" }, social.platform.origin);
    expect(status).toBe(200);
    expect(body.accessToken).not.toBe(first.data!.accessToken);
    expect(new Date(body.accessTokenExpiresAt).getTime()).toBeGreaterThan(expiresAt);
    expect(await social.idp.userinfo(body.accessToken)).toMatchObject({ sub: account.sub });
    expect(refreshRequests()).toBe(before + 1);
  });

  it("without a refresh token answers the expired token as stored, with its past expiry", async () => {
    const { client, google } = await signedIn(social, "no-refresh");
    const first = await client.getAccessToken({ accountId: google.id });
    const { row } = await storedTokens(google.userId);
    await social.platform.services.identity.deps.store.updateAccountTokens(row.id, { ...tokenColumns(row), refreshToken: null });

    social.clock.advance(HOUR_MS + 60_000);
    const before = refreshRequests();
    const { data, error } = await client.getAccessToken({ accountId: google.id });
    expect(error).toBeNull();
    expect(data).toMatchObject({ accessToken: first.data!.accessToken });
    expect(new Date(data!.accessTokenExpiresAt!).getTime()).toBe(new Date(first.data!.accessTokenExpiresAt!).getTime());
    expect(new Date(data!.accessTokenExpiresAt!).getTime()).toBeLessThan(Date.now());
    expect(refreshRequests()).toBe(before);
  });

  it("a refresh token the provider refuses: 400 INVALID_TOKEN, as refresh-token answers, and the stored token stays", async () => {
    const { client, google } = await signedIn(social, "refused");
    const first = await client.getAccessToken({ accountId: google.id });
    const { row } = await storedTokens(google.userId);
    const { providerTokens, store } = social.platform.services.identity.deps;
    await store.updateAccountTokens(row.id, { ...tokenColumns(row), refreshToken: providerTokens.seal("a-refresh-token-the-provider-never-granted", row.id) });

    social.clock.advance(HOUR_MS + 60_000);
    const before = refreshRequests();
    const { data, error } = await client.getAccessToken({ accountId: google.id });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 400, code: "INVALID_TOKEN" });
    expect(refreshRequests()).toBe(before + 1);
    expect((await client.refreshToken({ accountId: google.id })).error).toMatchObject({ status: 400, code: "INVALID_TOKEN" });
    expect((await storedTokens(google.userId)).accessToken).toBe(first.data!.accessToken);
  });
});
