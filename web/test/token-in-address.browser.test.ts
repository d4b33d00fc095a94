/**
 * A mailed link's token in the web app's address, with an analytics script configured: the reset and the
 * verification screens take the token out of the address as they load (the history entry replaced), the
 * web server serves them without the analytics script and with no Referer sent, and the reset and the
 * verification still work. A reload after the token left the address says to open the mailed link again.
 */
import type { Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { mailLink, poll, signUpByApi } from "./browser-helpers.js";

const ANALYTICS = "/_insights/script.js";
const web = useWebApp({ smtp: true, config: { basePath: "/api/auth", analyticsPath: ANALYTICS } });

/** Every request the page makes from now on, to read the paths and the Referer headers once done. */
function record(page: Awaited<ReturnType<typeof web.page>>): Request[] {
  const requests: Request[] = [];
  page.on("request", (request) => requests.push(request));
  return requests;
}

/** What the page's requests reveal: their paths, and the Referer headers sent. */
async function seen(requests: Request[]): Promise<{ paths: string[]; referers: string[] }> {
  const referers = await Promise.all(requests.map(async (request) => (await request.allHeaders()).referer ?? ""));
  return { paths: requests.map((request) => new URL(request.url()).pathname), referers: referers.filter(Boolean) };
}

/** The scripts of the page that are not the app's own. */
const foreignScripts = (page: Awaited<ReturnType<typeof web.page>>) =>
  page.locator("script[src]").evaluateAll((nodes) => nodes.map((n) => new URL((n as HTMLScriptElement).src).pathname).filter((path) => !path.startsWith("/assets/")));

describe("a token in the web app's address", () => {
  it("is taken out of the reset screen's address on load, seen by no analytics script nor Referer, and the reset succeeds", async () => {
    const email = uniqueEmail("web-reset-token");
    await signUpByApi(web.origin, { name: "Token Keeper", email, password: "old-password-1" });
    const asked = await fetch(`${web.origin}/api/auth/forget-password`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: web.origin },
      body: JSON.stringify({ email, redirectTo: "/reset-password" }),
    });
    expect(asked.status).toBe(200);
    const link = mailLink((await web.smtp.waitFor(email, (m) => m.text.includes("/reset-password/"))).text, "/reset-password/");
    const token = new URL(link).pathname.split("/").at(-1)!;

    const page = await web.page();
    await page.route(`**${ANALYTICS}`, (route) => route.fulfill({ status: 200, contentType: "text/javascript", body: "window.analyticsSaw = location.href;" }));
    const requests = record(page);
    // The gateway checks the token and redirects to /reset-password?token=...; the screen takes it out.
    const landing = await page.goto(link);
    expect(landing?.url()).toBe(`${web.origin}/reset-password?token=${token}`);
    expect(await landing?.headerValue("referrer-policy")).toBe("no-referrer");
    await poll(() => page.url()).toBe(`${web.origin}/reset-password`);
    await page.getByLabel("New password", { exact: true }).waitFor();
    expect(await page.evaluate(() => location.href)).not.toContain(token);
    expect(await foreignScripts(page)).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { analyticsSaw?: string }).analyticsSaw)).toBeUndefined();
    const loaded = await seen(requests);
    expect(loaded.paths).not.toContain(ANALYTICS);
    expect(loaded.referers.filter((referer) => referer.includes(token))).toEqual([]);

    // A reload: the token is gone with the address; the screen says to open the mailed link again.
    await page.reload();
    await poll(() => page.getByRole("alert").innerText()).toContain("Open the link from your email again");
    expect(await page.getByLabel("New password", { exact: true }).count()).toBe(0);

    // The mailed link, opened again, still works until used.
    await page.goto(link);
    await poll(() => page.url()).toBe(`${web.origin}/reset-password`);
    await page.getByLabel("New password", { exact: true }).fill("new-password-2");
    await page.getByRole("button", { name: "Set new password" }).click();
    await poll(() => page.getByRole("status").innerText()).toBe("Your password has been changed. You can now sign in with it.");
    const done = await seen(requests);
    expect(done.paths).toContain("/api/auth/reset-password");
    expect(done.paths).not.toContain(ANALYTICS);
    expect(done.referers.filter((referer) => referer.includes(token))).toEqual([]);
    const signIn = await fetch(`${web.origin}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: web.origin },
      body: JSON.stringify({ email, password: "new-password-2" }),
    });
    expect(signIn.status).toBe(200);
  });

  it("is taken out of the verification screen's address on load, with no analytics script, and the address is verified", async () => {
    const email = uniqueEmail("web-verify-token");
    await signUpByApi(web.origin, { name: "Token Checker", email, password: "password-123" });
    const token = new URL(mailLink((await web.smtp.waitFor(email, (m) => m.text.includes("/verify-email"))).text, "/verify-email")).searchParams.get("token")!;
    expect(token).toBeTruthy();

    const page = await web.page();
    await page.route(`**${ANALYTICS}`, (route) => route.fulfill({ status: 200, contentType: "text/javascript", body: "window.analyticsSaw = location.href;" }));
    const requests = record(page);
    const landing = await page.goto(`/verify-email?token=${encodeURIComponent(token)}`);
    expect(await landing?.headerValue("referrer-policy")).toBe("no-referrer");
    await poll(() => page.getByRole("status").innerText()).toBe("Your email address is verified.");
    expect(page.url()).toBe(`${web.origin}/verify-email`);
    expect(await foreignScripts(page)).toEqual([]);
    const loaded = await seen(requests);
    expect(loaded.paths).not.toContain(ANALYTICS);
    expect(loaded.referers.filter((referer) => referer.includes(token))).toEqual([]);
  });

  it("leaves the analytics script on the other pages", async () => {
    const page = await web.page();
    await page.route(`**${ANALYTICS}`, (route) => route.fulfill({ status: 200, contentType: "text/javascript", body: "window.analyticsSaw = location.href;" }));
    await page.goto("/sign-in");
    await poll(() => page.evaluate(() => (window as unknown as { analyticsSaw?: string }).analyticsSaw)).toBe(`${web.origin}/sign-in`);
    expect(await foreignScripts(page)).toEqual([ANALYTICS]);
  });
});
