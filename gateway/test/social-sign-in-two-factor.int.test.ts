/**
 * Social sign-in of a user with two-factor on, against the real OpenID provider: the callback creates no
 * session, sets the two-factor cookie and sends the browser to the web app's two-factor page with the
 * callback URL; a verified code then creates the session; a trusted device lets a later sign-in through
 * (and renews its cookie); a banned user is refused (BANNED_USER) whatever their second factor. Also the configured
 * providers route and the social sign-in counters.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { scrapeMetrics } from "../../testing/metrics.js";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";
import { socialTwoFactorFixtures } from "./social-two-factor-fixtures.js";

const APP = "http://app.test";
const social = useSocialPlatform({ env: { AUTH_APP_URL: APP, METRICS_PORT: "0" } });
const { api, codeFor, cookieNames, sessionOf, twoFactorUserWithGoogle, signInWithGoogle } = socialTwoFactorFixtures(social);

const scrapeGateway = () => scrapeMetrics(social.platform.gateway.metricsPort);
const signIns = (outcome: string) => `auth_sign_ins_total{method="social",outcome="${outcome}"}`;
const signUps = (outcome: string) => `auth_sign_ups_total{method="social",outcome="${outcome}"}`;

describe(`social sign-in with two-factor on (${backendLabel()})`, () => {
  it("challenges instead of signing in; the code creates the session; a trusted device then skips the challenge", async () => {
    const account = social.anAccount("twofactor");
    const { userId, totpURI } = await twoFactorUserWithGoogle(account);
    const before = await scrapeGateway();

    // The provider vouches for the user: still no session without the second factor.
    const flow = social.browser();
    const { end } = await signInWithGoogle(flow);
    expect(end.origin + end.pathname).toBe(`${APP}/two-factor`);
    expect(end.searchParams.get("redirect")).toBe("/dashboard?tab=1");
    expect(end.searchParams.get("methods")).toBe("totp,otp");
    expect(await sessionOf(flow)).toBeNull();
    expect([...flow.jar.cookies.keys()].some((name) => name.endsWith("session_token"))).toBe(false);
    expect([...flow.jar.cookies.keys()].some((name) => name.endsWith("two_factor"))).toBe(true);

    // A wrong code creates nothing; the right one the session, and trusts this browser.
    const wrong = codeFor(totpURI, 1) === "000000" ? "111111" : "000000";
    expect((await postJson(flow, api("/two-factor/verify-totp"), { code: wrong })).status).toBe(401);
    expect(await sessionOf(flow)).toBeNull();
    const verified = await postJson(flow, api("/two-factor/verify-totp"), { code: codeFor(totpURI, 1), trustDevice: true });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect((await sessionOf(flow))?.user.id).toBe(userId);

    // Signed out, the same browser signs in with Google again: the trusted device lets it straight through,
    // its cookie renewed on the way.
    expect((await postJson(flow, api("/sign-out"), {})).status).toBe(200);
    const start = await postJson(flow, api("/sign-in/social"), { provider: "google", callbackURL: "/dashboard" });
    const authorize = await flow.request(start.body.url);
    let location = authorize.headers.get("location")!;
    while (!location.includes("/callback/google")) location = (await flow.request(new URL(location, start.body.url).href)).headers.get("location")!;
    const trusted = await flow.request(new URL(location, start.body.url).href);
    expect(trusted.headers.get("location")).toBe(`${APP}/dashboard`);
    expect(cookieNames(trusted).some((name) => name.endsWith("trust_device"))).toBe(true);
    expect((await sessionOf(flow))?.user.id).toBe(userId);

    // Another browser (no trusted device) is challenged again.
    const stranger = social.browser();
    expect((await signInWithGoogle(stranger)).end.pathname).toBe("/two-factor");
    expect(await sessionOf(stranger)).toBeNull();

    const after = await scrapeGateway();
    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(delta(signIns("two_factor_required"))).toBe(2);
    expect(delta(signIns("success"))).toBe(1);
    expect(delta(signUps("success"))).toBe(0);
  });

  it("refuses a banned user with better-auth 1.7's BANNED_USER, challenge or not", async () => {
    const account = social.anAccount("banned");
    const { userId } = await twoFactorUserWithGoogle(account);
    await social.platform.services.identity.deps.store.updateUser(userId, { banned: true, banReason: "spam" });
    const flow = social.browser();
    const { end } = await signInWithGoogle(flow);
    expect(end.href).toBe(`${APP}/oops?error=BANNED_USER`);
    expect([...flow.jar.cookies.keys()].filter((name) => name.endsWith("two_factor") || name.endsWith("session_token"))).toEqual([]);
  });

  it("counts a first social sign-in as a registration and a sign-in", async () => {
    const before = await scrapeGateway();
    social.idp.signInAs(social.anAccount("counted"));
    const flow = social.browser();
    expect((await signInWithGoogle(flow)).end.href).toBe(`${APP}/dashboard?tab=1`);
    const after = await scrapeGateway();
    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(delta(signIns("success"))).toBe(1);
    expect(delta(signUps("success"))).toBe(1);
  });
});

describe("the configured providers", () => {
  it("GET /social-providers names the configured ones only, with nothing secret", async () => {
    const res = await fetch(api("/social-providers"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ providers: ["google"], names: {} });
  });
});
