/** The account page: profile and picture, password, email, sign-in methods, and deleting the account. */
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
    await poll(() => emailSection.getByRole("status").innerText()).toBe("Your email address has been changed.");
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
    await section.getByLabel("Password").fill("password-123");
    await section.getByRole("button", { name: "Delete my account" }).click();
    await poll(() => section.getByRole("status").innerText()).toBe("We sent you an email. Open its link to confirm that your account should be deleted.");

    const mail = await web.smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback"));
    await page.goto(mailLink(mail.text, "/delete-user/callback"));
    await page.waitForURL("**/goodbye");
    await poll(() => page.getByRole("status").innerText()).toBe("Your account and everything in it has been deleted.");
    await web.checkA11y(page, "account deleted");

    await page.goto("/sign-in");
    await page.getByLabel("Email or username").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("password-123");
    await page.getByRole("button", { name: "Sign in" }).click();
    await poll(() => page.getByRole("alert").innerText()).toBe("Invalid email or password");
  });
});
