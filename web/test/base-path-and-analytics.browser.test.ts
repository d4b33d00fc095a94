/**
 * The run-time settings of the web server (web/server/runtime-config.ts) in the browser: a platform whose API
 * lives at /auth instead of /api/auth (the gateway's AUTH_BASE_PATH, which the web server is given too) and
 * an analytics script configured at a relative path. The app signs up, out and in through /auth and never
 * calls /api/auth; the page carries the analytics script tag, and the browser fetches and runs it, once.
 */
import type { Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen } from "./browser-helpers.js";

const ANALYTICS = "/_insights/script.js";
const web = useWebApp({ config: { basePath: "/auth", analyticsPath: ANALYTICS } });

describe("a non-default API base path and an analytics script", () => {
  it("uses the configured base path for every call, and loads the configured analytics script", async () => {
    const page = await web.page();
    const requested: string[] = [];
    page.on("request", (request: Request) => requested.push(new URL(request.url()).pathname));
    // The analytics provider's script (served by its own edge in production): it counts its runs.
    await page.route(`**${ANALYTICS}`, (route) => route.fulfill({ status: 200, contentType: "text/javascript", body: "window.analyticsRuns = (window.analyticsRuns ?? 0) + 1;" }));

    const email = uniqueEmail("web-base-path");
    await page.goto("/sign-up");
    await page.getByLabel("Name", { exact: true }).fill("Bea Path");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill("password-123");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/account");
    await poll(() => page.locator("main").innerText()).toContain(email);

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/sign-in");
    await signInOnScreen(page, email, "password-123");
    await poll(() => page.locator("main").innerText()).toContain(email);

    const api = requested.filter((path) => path.startsWith("/auth/"));
    expect(api).toEqual(expect.arrayContaining(["/auth/sign-up/email", "/auth/sign-out", "/auth/sign-in/email", "/auth/get-session"]));
    expect(requested.filter((path) => path.startsWith("/api/"))).toEqual([]);

    // One script tag with the configured path; the browser fetched it and ran it (the security policy allows it).
    const scripts = await page.locator("script[src]").evaluateAll((nodes) => nodes.map((n) => new URL((n as HTMLScriptElement).src).pathname));
    expect(scripts.filter((path) => !path.startsWith("/assets/"))).toEqual([ANALYTICS]);
    expect(requested.filter((path) => path === ANALYTICS).length).toBeGreaterThanOrEqual(1);
    expect(await page.evaluate(() => (window as unknown as { analyticsRuns?: number }).analyticsRuns)).toBe(1);
    await web.checkA11y(page, "account (base path /auth)");
  });
});
