/** Small steps the browser suites share: an account made through the API, signing in through the screen. */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { eventually } from "../../testing/eventually.js";

/**
 * Signs up through the web app's /api/auth (as its own screen would), without a browser. A set-up step: a
 * 503 (identity's hashing queue refusing at once on a machine busy with other suites) is tried again.
 */
export async function signUpByApi(origin: string, fields: { name: string; email: string; password: string; username?: string }): Promise<void> {
  const status = await eventually(async () => {
    const res = await fetch(`${origin}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify(fields),
    });
    if (res.status === 503) throw new Error("sign-up refused with 503 (identity's hashing queue is full)");
    return res.status;
  });
  expect(status).toBe(200);
}

/** Signs in through the sign-in screen and waits for the account page. */
export async function signInOnScreen(page: Page, identifier: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email or username").fill(identifier);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/account");
}

/** The first link of a mail's text to the API path `path` (a prefix: "/reset-password/" matches any token). */
export function mailLink(text: string, path: string): string {
  const link = text.match(/https?:\/\/\S+/g)?.find((url) => new URL(url).pathname.startsWith(`/api/auth${path}`));
  if (!link) throw new Error(`no ${path} link in:\n${text}`);
  return link;
}

/** expect.poll with a timeout for a browser on a busy machine (vitest's default is one second). */
export const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });
