/**
 * The better-auth client suites' browser: a tab with one client generation in it (cookies kept, every
 * exchange recorded), links from mails opened in it, and the sign-up and verified-user fixtures.
 */
import { expect } from "vitest";
import type { ClientGeneration } from "../../testing/better-auth-clients.js";
import { browserFetch } from "../../testing/browser.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import type { PlatformUnderTest } from "../../testing/use-platform.js";

export const PASSWORD = "password-123";
export const TOKEN = /^[A-Za-z0-9]{32}$/;
export const EVIL = "https://evil.example/x";

export const sessionCookie = (cookies: Map<string, string>) => cookies.get("better-auth.session_token");
export const tokenOf = (link: string, name = "token") => new URL(link).searchParams.get(name)!;

/** The fixtures for one client generation on one platform (read lazily, once it started). */
export function betterAuthBrowsers(platform: PlatformUnderTest, generation: ClientGeneration) {
  const verifyMail = (email: string) => platform.smtp.waitFor(email, (m) => m.text.includes("/verify-email"));

  /** A browser tab with this generation's better-auth client in it. */
  function aBrowser() {
    const { cookies, exchanges, customFetchImpl } = browserFetch(platform.origin);

    const client = generation.make(platform.baseURL, customFetchImpl);

    /** Opens a link (from a mail) in this tab: a GET with the tab's cookies, redirects not followed. */
    const open = async (link: string) => {
      const res = await customFetchImpl(link);
      const text = await res.text();
      const json = (res.headers.get("content-type") ?? "").includes("json");
      return { status: res.status, location: res.headers.get("location"), body: json && text ? JSON.parse(text) : text };
    };

    return { client, cookies, exchanges, open, last: () => exchanges[exchanges.length - 1]! };
  }

  type Browser = ReturnType<typeof aBrowser>;

  /** What the client put on the wire for its last call: method, path under the base path, JSON body. */
  function expectSent(browser: Browser, method: string, path: string, body?: unknown) {
    const sent = browser.last();
    expect({ method: sent.method, path: new URL(sent.url).pathname }).toEqual({ method, path: `/api/auth${path}` });
    if (body !== undefined) expect(JSON.parse(sent.body ?? "null")).toEqual(body);
    else expect(sent.body).toBeUndefined();
  }

  async function signedUp(label = "lifecycle"): Promise<Browser & { email: string; user: { id: string; email: string; name: string }; token: string }> {
    const browser = aBrowser();
    const email = uniqueEmail(label);
    const { data, error } = await browser.client.signUp.email({ name: "Ada", email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data!.token).toMatch(TOKEN);
    return { ...browser, email, user: data!.user, token: data!.token as string };
  }

  /** A signed-up user whose address was verified through the mailed link. */
  async function verifiedUser(label = "verified") {
    const browser = await signedUp(label);
    const { data, error } = await browser.client.verifyEmail({ query: { token: tokenOf(linkIn(await verifyMail(browser.email), "/verify-email")) } });
    expect(error).toBeNull();
    expect(data).toMatchObject({ status: true, user: { email: browser.email, emailVerified: true } });
    return browser;
  }

  return { aBrowser, expectSent, signedUp, verifiedUser, verifyMail };
}
