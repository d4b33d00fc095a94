/**
 * The account page: profile and picture, password, the email change journey (both links), sign-in methods,
 * the language picker, and deleting the account (asked first, then reported).
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { mailLink, poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

const web = useWebApp({ smtp: true });

describe("account page", () => {
  it("saves the name and a picture scaled down to a small data URL, and refuses a file over 4 MB", async () => {
    const email = uniqueEmail("web-profile");
    await signUpByApi(web.origin, { name: "Old Name", email, password: "password-123" });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");
    await web.checkA11y(page, "account");

    const profile = page.getByRole("region", { name: "Profile" });
    // A 1200x900 PNG drawn by the browser itself.
    const png = Buffer.from(
      (
        await page.evaluate(() => {
          const canvas = document.createElement("canvas");
          canvas.width = 1200;
          canvas.height = 900;
          const context = canvas.getContext("2d")!;
          context.fillStyle = "#0a7";
          context.fillRect(0, 0, 1200, 900);
          context.fillStyle = "#fc0";
          context.fillRect(300, 200, 600, 500);
          return canvas.toDataURL("image/png");
        })
      ).split(",")[1]!,
      "base64",
    );
    const file = profile.getByLabel("Profile picture (up to 4 MB)");
    await file.setInputFiles({ name: "big.png", mimeType: "image/png", buffer: Buffer.alloc(4 * 1024 * 1024 + 1) });
    await poll(() => profile.locator(".field-error").innerText()).toBe("The image is larger than 4 MB. Choose a smaller one.");
    await file.setInputFiles({ name: "photo.png", mimeType: "image/png", buffer: png });
    await poll(() => profile.getByRole("img", { name: "Your profile picture" }).getAttribute("src")).toMatch(/^data:image\/webp;base64,/);
    await profile.getByLabel("Name", { exact: true }).fill("New Name");
    await profile.getByRole("button", { name: "Save profile" }).click();
    await poll(() => profile.getByRole("status").innerText()).toBe("Your profile has been saved.");
    await web.screenshot(page, "account");

    const session = await page.evaluate(() => fetch("/api/auth/get-session").then((r) => r.json()));
    expect(session.user.name).toBe("New Name");
    expect(session.user.image).toMatch(/^data:image\/webp;base64,/);
    expect(session.user.image.length).toBeLessThanOrEqual(2048);

    await page.reload();
    await poll(() => page.getByLabel("Name", { exact: true }).inputValue()).toBe("New Name");
  });

  it("changes the password (a wrong current one is refused next to its field), and changes an unverified email at once", async () => {
    const email = uniqueEmail("web-password");
    await signUpByApi(web.origin, { name: "Pat", email, password: "password-123" });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");

    const password = page.getByRole("region", { name: "Password" });
    await password.getByLabel("Current password").fill("wrong-password");
    await password.getByLabel("New password", { exact: true }).fill("password-456");
    await password.getByRole("button", { name: "Change password" }).click();
    await poll(() => password.locator(".field-error").innerText()).toBe("Invalid password");
    expect(await password.getByLabel("Current password").getAttribute("aria-invalid")).toBe("true");
    await web.checkA11y(page, "account with a field error");
    await password.getByLabel("Current password").fill("password-123");
    await password.getByRole("button", { name: "Change password" }).click();
    await poll(() => password.getByRole("status").innerText()).toBe("Your password has been changed.");

    const newEmail = uniqueEmail("web-password-moved");
    const emailSection = page.getByRole("region", { name: "Email address" });
    await emailSection.getByLabel("New email address").fill(email);
    await emailSection.getByRole("button", { name: "Change email" }).click();
    await poll(() => emailSection.locator(".field-error").innerText()).toBe("Email is the same");
    await emailSection.getByLabel("New email address").fill(newEmail);
    await emailSection.getByRole("button", { name: "Change email" }).click();
    await poll(() => emailSection.getByRole("status").innerText()).toBe(`Your email address is now ${newEmail}. We sent a link there to verify it.`);
    await poll(() => page.getByText(`Email: ${newEmail} (not verified)`).count()).toBe(1);

    const other = await web.page();
    await signInOnScreen(other, newEmail, "password-456");
  });

  it("lists the sign-in methods and keeps the last one from being unlinked", async () => {
    const email = uniqueEmail("web-accounts");
    await signUpByApi(web.origin, { name: "Lin", email, password: "password-123" });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");
    const methods = page.getByRole("region", { name: "Sign-in methods" });
    await poll(() => methods.getByRole("listitem").count()).toBe(1);
    expect(await methods.getByRole("listitem").innerText()).toContain("Email and password");
    expect(await methods.getByRole("button", { name: "Unlink Email and password" }).isDisabled()).toBe(true);
  });

  it("deletes the account after the mailed confirmation", async () => {
    const email = uniqueEmail("web-delete");
    await signUpByApi(web.origin, { name: "Del", email, password: "password-123" });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");
    const section = page.getByRole("region", { name: "Delete account" });
    // Asked first, with the password in the dialog; cancelling sends nothing.
    await section.getByRole("button", { name: "Delete my account" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete your account?" });
    await web.checkA11y(page, "delete account dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await poll(() => dialog.isVisible()).toBe(false);
    await section.getByRole("button", { name: "Delete my account" }).click();
    await dialog.getByLabel("Password").fill("wrong-password");
    await dialog.getByRole("button", { name: "Delete my account" }).click();
    await poll(() => dialog.getByRole("alert").innerText()).toBe("Invalid password");
    await dialog.getByLabel("Password").fill("password-123");
    await dialog.getByRole("button", { name: "Delete my account" }).click();
    await poll(() => dialog.isVisible()).toBe(false);
    // Then it says what happened, and that nothing is deleted until the mailed link is opened.
    await poll(() => section.getByRole("status").innerText()).toContain(
      "We sent you an email. Open its link to confirm that your account should be deleted. Until then nothing is deleted",
    );

    const mail = await web.smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback"));
    await page.goto(mailLink(mail.text, "/delete-user/callback"));
    await page.waitForURL("**/goodbye");
    await poll(() => page.getByRole("status").innerText()).toBe("Your account and everything in it has been deleted.");
    await web.checkA11y(page, "account deleted");

    await page.goto("/sign-in");
    await page.getByLabel("Email or username").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("password-123");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await poll(() => page.getByRole("alert").innerText()).toBe("Invalid email or password");
  });

  it("changes a verified address in two steps, each link landing on a page that says where the change is", async () => {
    const email = uniqueEmail("web-move");
    const newEmail = uniqueEmail("web-moved");
    await signUpByApi(web.origin, { name: "Mo", email, password: "password-123" });
    const page = await web.page();
    // Verified from the sign-up's link (it lands on the home page: the sign-up named no callback).
    await page.goto(mailLink((await web.smtp.waitFor(email)).text, "/verify-email"));
    await page.waitForURL(`${web.origin}/`);
    await signInOnScreen(page, email, "password-123");
    await poll(() => page.getByText(`Email: ${email} (verified)`).count()).toBe(1);

    // The form says what will happen before anything does.
    const section = page.getByRole("region", { name: "Email address" });
    await poll(() => section.innerText()).toContain(`The first goes to your current address, ${email}: open it to approve the change`);
    await section.getByLabel("New email address").fill(newEmail);
    await section.getByRole("button", { name: "Change email" }).click();
    await poll(() => section.getByRole("status").innerText()).toBe(
      `We sent a link to ${email}. Open it to approve the change; then we send a link to your new address to verify it.`,
    );

    // The approval, from the old address: the account is on the new one now, and its link is on the way.
    const approval = await web.smtp.waitFor(email, (m) => m.text.includes(newEmail));
    await page.goto(mailLink(approval.text, "/verify-email"));
    await page.waitForURL((url) => url.pathname === "/verify-email" && url.searchParams.get("change") === "email");
    await poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Check your new address");
    await poll(() => page.getByRole("status").innerText()).toBe(
      `The change is approved: your account now uses ${newEmail}. We sent a link there: open it to verify your new address.`,
    );
    expect(await page.getByRole("alert").count()).toBe(0);
    await web.checkA11y(page, "email change approved");

    // The new address's link comes back to the same page, which now says the change is done.
    const verification = mailLink((await web.smtp.waitFor(newEmail)).text, "/verify-email");
    expect(new URL(new URL(verification).searchParams.get("callbackURL")!, web.origin).searchParams.get("change")).toBe("email");
    await page.goto(verification);
    await page.waitForURL((url) => url.pathname === "/verify-email" && url.searchParams.get("change") === "email");
    await poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Email address changed");
    await poll(() => page.getByRole("status").innerText()).toBe("Your email address is changed and verified.");
    await page.getByRole("link", { name: "Go to your account" }).click();
    await poll(() => page.getByText(`Email: ${newEmail} (verified)`).count()).toBe(1);
  });

  it("shows the account page in the language picked there, and keeps it after a reload", async () => {
    const email = uniqueEmail("web-language");
    await signUpByApi(web.origin, { name: "Lena", email, password: "password-123" });
    const page = await web.page();
    await signInOnScreen(page, email, "password-123");
    await page.getByRole("region", { name: "Language" }).getByLabel("Language").selectOption("de");
    await poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Ihr Konto");
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("de");
    await poll(() => page.getByRole("region", { name: "Aktive Sitzungen" }).getByRole("button", { name: "Überall abmelden" }).count()).toBe(1);
    await web.checkA11y(page, "account in German");
    await web.screenshot(page, "account-de");

    await page.reload();
    await poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Ihr Konto");
    expect(await page.getByRole("region", { name: "Sprache" }).getByLabel("Sprache").inputValue()).toBe("de");
    await poll(() => page.getByText(`E-Mail-Adresse: ${email} (nicht bestätigt)`).count()).toBe(1);
  });
});
