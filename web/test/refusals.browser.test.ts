/**
 * Refusals a person must understand: a banned user's sign-in says the account is suspended (and until when)
 * once the password was right, and nothing more for a wrong one; a rate-limited form says how long to wait
 * and its button counts the wait down (the browser's clock moved on, no sleeping); the same local refusal
 * twice is announced twice.
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signUpByApi } from "./browser-helpers.js";

// Rate limiting on, with a one-minute window of one request on the reset request (the other paths keep
// the default rule, far above what these tests send).
const web = useWebApp({ rateLimit: true, env: { RATE_LIMIT_RULES: JSON.stringify({ "/forget-password": { window: 60, max: 1 } }) } });

const DAY_MS = 86_400_000;

describe("a banned user's sign-in", () => {
  it("says the account is suspended, and until when, only after the right password", async () => {
    const email = uniqueEmail("web-banned");
    await signUpByApi(web.origin, { name: "Ban", email, password: "password-123" });
    const store = web.platform.services.identity.deps.store;
    const user = (await store.findUserByEmail(email))!;
    const ends = new Date(Date.now() + 30 * DAY_MS);
    await store.updateUser(user.id, { banned: true, banReason: "spam", banExpires: ends });

    const page = await web.page();
    await page.goto("/sign-in");
    const alert = page.getByRole("alert");
    // A wrong password tells nothing of the ban: the answer anyone gets.
    await page.getByLabel("Email or username").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("wrong-password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await poll(() => alert.innerText()).toBe("Invalid email or password");

    await page.getByLabel("Password", { exact: true }).fill("password-123");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // The end in the reader's language and time zone, as the browser writes a long date and a short time.
    const until = await page.evaluate((iso) => new Intl.DateTimeFormat("en", { dateStyle: "long", timeStyle: "short" }).format(new Date(iso)), ends.toISOString());
    await poll(() => alert.innerText()).toBe(`Your account is suspended until ${until}.`);
    expect(until).toContain(String(ends.getUTCFullYear()));
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await web.checkA11y(page, "sign-in of a suspended account");
    await web.screenshot(page, "sign-in-suspended");

    // A ban without an end: suspended, and no date.
    await store.updateUser(user.id, { banExpires: null });
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await poll(() => alert.innerText()).toBe("Your account is suspended.");
  });
});

describe("a rate-limited form", () => {
  it("says how long to wait, and its button counts the wait down before it can be pressed again", async () => {
    const email = uniqueEmail("web-limited");
    // The window's one request, from this client (the same address as the browser's).
    const first = await fetch(`${web.origin}/api/auth/forget-password`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: web.origin },
      body: JSON.stringify({ email, redirectTo: "/reset-password" }),
    });
    expect(first.status).toBe(200);

    const page = await web.page();
    await page.clock.install();
    await page.goto("/forgot-password");
    await page.getByLabel("Email").fill(email);
    const button = page.locator("form button[type=submit]");
    await button.click();
    // What is left of the window (it began with the request above: under a second ago on a quick machine,
    // which the message rounds up to the whole minute; a few seconds ago on a busy one).
    await poll(() => page.getByRole("alert").innerText()).toMatch(/^Too many attempts\. Wait (\d+ seconds|1 minute), then try again\.$/);
    const said = await page.getByRole("alert").innerText();
    const wait = said.includes("1 minute") ? 60 : Number(said.match(/\d+/)![0]);
    expect(wait).toBeGreaterThan(20);
    expect(wait).toBeLessThanOrEqual(60);
    const secondsOnButton = async () => Number((await button.innerText()).match(/^Try again in (\d+) s$/)?.[1] ?? Number.NaN);
    await poll(secondsOnButton).toBeGreaterThan(wait - 5);
    expect(await secondsOnButton()).toBeLessThanOrEqual(wait);
    expect(await button.isDisabled()).toBe(true);
    await web.checkA11y(page, "a rate-limited form");
    await web.screenshot(page, "rate-limited");

    // Ten seconds later (the browser's clock moved on): still waiting, ten seconds fewer to go.
    await page.clock.fastForward(10_000);
    await poll(secondsOnButton).toBeLessThanOrEqual(wait - 10);
    expect(await button.isDisabled()).toBe(true);
    await page.clock.fastForward(wait * 1000);
    await poll(() => button.innerText()).toBe("Send reset link");
    expect(await button.isDisabled()).toBe(false);
  });
});

describe("the same refusal twice", () => {
  it("is announced again: the alert takes the focus back", async () => {
    const page = await web.page();
    await page.goto("/sign-up");
    const submit = page.getByRole("button", { name: "Create account" });
    await submit.click();
    await poll(() => page.getByRole("alert").innerText()).toBe("Enter your name.");
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("alert");
    await page.getByLabel("Email", { exact: true }).focus();
    await submit.click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("alert");
  });
});
