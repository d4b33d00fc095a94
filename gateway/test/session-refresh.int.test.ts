/** Session refresh: a session read after the update age is extended by its full lifetime (never a short one). */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

describe(`session refresh (${backendLabel()})`, () => {
  // A one-second update age; the suite moves the services' clock past it instead of waiting.
  const platform = usePlatform({ env: { SESSION_UPDATE_AGE: "1", IDENTITY_USER_FIELDS: JSON.stringify({ phone: { type: "string" } }) } });

  it("extends a session used after the update age and reissues the cookie; disableRefresh leaves it", async () => {
    const client = new TestClient(platform.baseURL);
    await client.post("/sign-up/email", { name: "R", email: uniqueEmail("refresh"), password: "password-123", phone: "+1 555" });
    const first = (await client.get("/get-session")).body.session;
    platform.clock.advance(1_200);
    const untouched = await client.get("/get-session?disableRefresh=true");
    expect(untouched.body.session.expiresAt).toBe(first.expiresAt);
    expect(untouched.headers.getSetCookie()).toEqual([]);

    const refreshed = await client.get("/get-session");
    expect(Date.parse(refreshed.body.session.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt));
    const cookie = refreshed.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="));
    // Exactly the configured expiry, not a second short.
    expect(cookie).toMatch(/; Max-Age=604800(;|$)/);
    // The next read within the update age serves the extended session as is.
    expect((await client.get("/get-session")).body.session.expiresAt).toBe(refreshed.body.session.expiresAt);
  });

  it("never extends a rememberMe=false session", async () => {
    const email = uniqueEmail("short");
    await new TestClient(platform.baseURL).post("/sign-up/email", { name: "S", email, password: "password-123", phone: "1" });
    const client = new TestClient(platform.baseURL);
    await client.post("/sign-in/email", { email, password: "password-123", rememberMe: false });
    const first = (await client.get("/get-session")).body.session;
    platform.clock.advance(1_200);
    const later = await client.get("/get-session");
    expect(later.body.session.expiresAt).toBe(first.expiresAt);
    expect(later.headers.getSetCookie()).toEqual([]);
  });
});
