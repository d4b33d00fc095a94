/**
 * A challenged social sign-in where no web app is configured (no AUTH_APP_URL): there is no two-factor page
 * to send the browser to, so it goes to the callback URL told twoFactorRedirect=true, without a session.
 */
import { describe, expect, it } from "vitest";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";
import { socialTwoFactorFixtures } from "./social-two-factor-fixtures.js";

const bare = useSocialPlatform();
const { api, codeFor, sessionOf, twoFactorUserWithGoogle, signInWithGoogle } = socialTwoFactorFixtures(bare);

describe("social sign-in with two-factor on, without a web app (no AUTH_APP_URL)", () => {
  it("sends the browser to the callback URL told twoFactorRedirect=true, with the challenge cookie and no session", async () => {
    const account = bare.anAccount("bare");
    const { userId, totpURI } = await twoFactorUserWithGoogle(account);
    const flow = bare.browser();
    const { end } = await signInWithGoogle(flow);
    expect(end.href).toBe(`${bare.platform.origin}/dashboard?tab=1&twoFactorRedirect=true&twoFactorMethods=totp%2Cotp`);
    expect(await sessionOf(flow)).toBeNull();
    const verified = await postJson(flow, api("/two-factor/verify-totp"), { code: codeFor(totpURI, 1) });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect((await sessionOf(flow))?.user.id).toBe(userId);
  });
});
