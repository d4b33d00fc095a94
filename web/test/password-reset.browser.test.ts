/** Forgot password, the mailed link, the new password, and the link's refusal once used. */
import { describe, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { mailLink, poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

const web = useWebApp({ smtp: true });

describe("password reset", () => {
  it("mails a link that opens the reset screen, sets the new password, and refuses the used link", async () => {
    const email = uniqueEmail("web-reset");
    await signUpByApi(web.origin, { name: "Reset Me", email, password: "old-password-1" });
    const page = await web.page();
    await page.goto("/sign-in");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.waitForURL("**/forgot-password");
    await web.checkA11y(page, "forgot password");
    await page.getByLabel("Email").fill(email);
    await web.screenshot(page, "forgot-password");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await poll(() => page.getByRole("status").innerText()).toBe("If an account uses this address, a password reset link has been sent to it");

    const mail = await web.smtp.waitFor(email, (m) => m.text.includes("/reset-password/"));
    const link = mailLink(mail.text, "/reset-password/");
    await page.goto(link);
    // The screen takes the token out of the address as it loads (token-in-address.browser.test.ts).
    await page.waitForURL((url) => url.pathname === "/reset-password" && !url.searchParams.has("token"));
    await web.checkA11y(page, "reset password");
    await page.getByLabel("New password", { exact: true }).fill("new-password-2");
    await web.screenshot(page, "reset-password");
    await page.getByRole("button", { name: "Set new password" }).click();
    await poll(() => page.getByRole("status").innerText()).toBe("Your password has been changed. You can now sign in with it.");

    // The same link again: the gateway redirects with ?error=INVALID_TOKEN, and the screen says so.
    await page.goto(link);
    await page.waitForURL((url) => url.searchParams.get("error") === "INVALID_TOKEN");
    await poll(() => page.getByRole("alert").innerText()).toContain("This link is not valid");
    await web.checkA11y(page, "reset password with a used link");

    const fresh = await web.page();
    await signInOnScreen(fresh, email, "new-password-2");
  });

  it("accepts the token in the path (/reset-password/{token}) and shows the API's error for a bad one", async () => {
    const page = await web.page();
    await page.goto("/reset-password/not-a-real-token");
    await page.getByLabel("New password", { exact: true }).fill("new-password-3");
    await page.getByRole("button", { name: "Set new password" }).click();
    await poll(() => page.getByRole("alert").innerText()).toBe("invalid token");
  });

  it("refuses a malformed address next to the field", async () => {
    const page = await web.page();
    await page.goto("/forgot-password");
    await page.getByLabel("Email").fill("not-an-address");
    await page.getByRole("button", { name: "Send reset link" }).click();
    const field = page.getByLabel("Email");
    await poll(() => field.getAttribute("aria-invalid")).toBe("true");
    await poll(() => page.locator(".field-error").innerText()).toBe("Invalid email");
  });
});
