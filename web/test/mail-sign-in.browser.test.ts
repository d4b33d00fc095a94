/** Sign-in by a mailed link and by a mailed code through the app, and the password reset by code. */
import { describe, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { mailLink, poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

const web = useWebApp({ smtp: true, env: { IDENTITY_MAGIC_LINK_ENABLED: "true", IDENTITY_EMAIL_OTP_ENABLED: "true" } });

const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;

describe("mail sign-in", () => {
  it("a new address signs up and in by the mailed link, landing on the account page", async () => {
    const email = uniqueEmail("web-link");
    const page = await web.page();
    await page.goto("/sign-in");
    await web.checkA11y(page, "sign-in with mail sign-in");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await web.screenshot(page, "sign-in-mail");
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await poll(() => page.getByRole("status").innerText()).toContain(`If ${email} can sign in here, a sign-in link is on its way.`);

    const mail = await web.smtp.waitFor(email, (m) => m.text.includes("/magic-link/verify"));
    await page.goto(mailLink(mail.text, "/magic-link/verify"));
    await page.waitForURL("**/account");
    await poll(() => page.getByText(email).first().isVisible()).toBe(true);
    await poll(() => page.getByText("No password and no linked account").count()).toBe(1);

    // Then a first password, on the account page, and a sign-in with it.
    const password = page.getByRole("region", { name: "Password", exact: true });
    await password.getByLabel("New password", { exact: true }).fill("first-password-1");
    await web.checkA11y(page, "account signed in by link");
    await password.getByRole("button", { name: "Set a password" }).click();
    await poll(() => password.getByLabel("Current password").count()).toBe(1);
    await signInOnScreen(await web.page(), email, "first-password-1");

    // The link again: back on the sign-in screen, which says why.
    const again = await web.page();
    await again.goto(mailLink(mail.text, "/magic-link/verify"));
    await again.waitForURL((url) => url.pathname === "/sign-in" && url.searchParams.get("error") === "INVALID_TOKEN");
    await poll(() => again.getByRole("alert").innerText()).toContain("This link is not valid");
  });

  it("a user signs in with the mailed code on the code screen", async () => {
    const email = uniqueEmail("web-code");
    await signUpByApi(web.origin, { name: "Code User", email, password: "password-123" });
    const page = await web.page();
    await page.goto("/sign-in");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Email me a code" }).click();
    // The address is kept in memory, not in the page's address.
    await page.waitForURL((url) => url.pathname === "/sign-in/code" && url.search === "");
    await web.checkA11y(page, "sign-in code");
    const mail = await web.smtp.waitFor(email, (m) => m.subject.includes("sign-in code"));
    await page.getByLabel("Code", { exact: true }).fill("000000" === codeIn(mail.text) ? "111111" : "000000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await poll(() => page.getByRole("alert").innerText()).toBe("Invalid OTP");
    await page.getByLabel("Code", { exact: true }).fill(codeIn(mail.text));
    await web.screenshot(page, "sign-in-code");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/account");
  });

  it("resets the password with a mailed code, and the new password signs in", async () => {
    const email = uniqueEmail("web-reset-code");
    await signUpByApi(web.origin, { name: "Reset Code", email, password: "old-password-1" });
    const page = await web.page();
    await page.goto("/forgot-password");
    await page.getByRole("link", { name: "Email me a code instead" }).click();
    await page.waitForURL("**/forgot-password/code");
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Email me a code" }).click();
    const mail = await web.smtp.waitFor(email, (m) => m.subject.includes("password reset code"));
    await page.getByLabel("Code", { exact: true }).fill(codeIn(mail.text));
    await page.getByLabel("New password", { exact: true }).fill("new-password-2");
    await web.checkA11y(page, "reset password by code");
    await page.getByRole("button", { name: "Set new password" }).click();
    await poll(() => page.getByRole("status").innerText()).toBe("Your password has been changed. You can now sign in with it.");
    await signInOnScreen(await web.page(), email, "new-password-2");
  });
});
