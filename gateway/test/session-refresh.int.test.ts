/** Session refresh past the update age (SESSION_UPDATE_AGE=1), on a test clock: nothing waits for it. */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

const platform = usePlatform({ env: { SESSION_UPDATE_AGE: "1" } });

describe(`session refresh (${backendLabel()})`, () => {
  it("extends a session used after the update age and reissues the cookie; disableRefresh leaves it", async () => {
    const client = platform.client();
    await client.post("/sign-up/email", { name: "R", email: uniqueEmail("refresh"), password: "password-123" });
    const first = (await client.get("/get-session")).body.session;
    platform.clock.advance(1_200);
    const untouched = await client.get("/get-session?disableRefresh=true");
    expect(untouched.body.session.expiresAt).toBe(first.expiresAt);
    expect(untouched.headers.getSetCookie()).toEqual([]);

    const refreshed = await client.get("/get-session");
    expect(Date.parse(refreshed.body.session.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt));
    const cookie = refreshed.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="));
    expect(cookie).toMatch(/Max-Age=604\d{3}/);
    // The next read within the update age serves the extended session as is.
    expect((await client.get("/get-session")).body.session.expiresAt).toBe(refreshed.body.session.expiresAt);
  });

  it("never extends a rememberMe=false session", async () => {
    const email = uniqueEmail("short");
    await platform.client().post("/sign-up/email", { name: "S", email, password: "password-123" });
    const client = platform.client();
    await client.post("/sign-in/email", { email, password: "password-123", rememberMe: false });
    const first = (await client.get("/get-session")).body.session;
    platform.clock.advance(1_200);
    const later = await client.get("/get-session");
    expect(later.body.session.expiresAt).toBe(first.expiresAt);
    expect(later.headers.getSetCookie()).toEqual([]);
  });
});
