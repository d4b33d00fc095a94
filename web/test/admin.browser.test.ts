/**
 * The admin area in the browser: a user promoted with the operator command (the
 * admin-bootstrap process, with the admin workload's certificate) finds a user by search, bans them (their
 * open browser is signed out, their sign-in refused), finds them under the "Banned" filter, unbans,
 * impersonates them (the banner on every page) and stops, reads the audit log, and removes the user behind a
 * typed confirmation; sets a user's role and password (checked through the API). A non-admin never sees the
 * area.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ENTRY_POINTS, ROOT } from "../../deploy/processes.js";
import { uniqueEmail } from "../../testing/http.js";
import { workloadEnv } from "../../testing/platform.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

// The roles the role screen gives besides the default user role (admins give only configured roles).
const web = useWebApp({ env: { ADMIN_ASSIGNABLE_ROLES: "user,editor,support" } });
const run = promisify(execFile);

/** `npm run admin:bootstrap -- --email <email>`, as an operator runs it against this platform. */
async function promoteWithOperatorCommand(email: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, ENTRY_POINTS["admin-bootstrap"]!), "--email", email], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...workloadEnv(web.platform.env, "admin") },
    timeout: 60_000,
  });
  return stdout;
}

describe("admin area", () => {
  it("searches, bans (the user is signed out), unbans, impersonates and stops, reads the audit log and removes a user", async () => {
    const adminEmail = uniqueEmail("web-admin");
    // A tag no other address of this run contains (uniqueEmail's are time-based, like Date.now() here).
    const tag = `q${Math.random().toString(36).slice(2, 10)}`;
    const targetEmail = `web-target-${tag}@example.com`;
    await signUpByApi(web.origin, { name: "Ada Admin", email: adminEmail, password: "password-123" });
    await signUpByApi(web.origin, { name: "Tom Target", email: targetEmail, password: "password-456" });
    await signUpByApi(web.origin, { name: "Other Person", email: `web-other-${tag}@example.com`, password: "password-789" });

    // Before the promotion (and for every other user): no admin link, and the area sends them home.
    const target = await web.page();
    await signInOnScreen(target, targetEmail, "password-456");
    expect(await target.getByRole("link", { name: "Admin" }).count()).toBe(0);
    await target.goto("/admin");
    await target.waitForURL((url) => url.pathname === "/");

    expect(await promoteWithOperatorCommand(adminEmail)).toMatch(new RegExp(`^promoted ${adminEmail} .* with role user,admin`));
    const admin = await web.page();
    await signInOnScreen(admin, adminEmail, "password-123");
    await admin.getByRole("link", { name: "Admin" }).click();
    await admin.waitForURL((url) => url.pathname === "/admin");

    // "Role contains admin" lists the admin the bootstrap command promoted, whose role is the list user,admin
    // (read together: the list shows the previous answer until the next one comes).
    await admin.getByLabel("Show").selectOption("admins");
    await admin.getByLabel("Search", { exact: true }).fill(adminEmail);
    await admin.getByRole("button", { name: "Search" }).click();
    const listed = async () => [
      await admin.getByRole("navigation", { name: "Users pages" }).getByRole("status").innerText(),
      await admin.getByRole("table", { name: "Users" }).locator("tbody").innerText(),
    ];
    await poll(listed).toEqual(["1 to 1 of 1", expect.stringContaining(adminEmail)]);
    expect((await listed())[1]).toContain("user,admin");
    // A fresh screen (all users, no search) for what follows, which reads the list's answers as they come.
    await admin.goto("/admin");

    // Search: email starting with the target's tag finds only them.
    await admin.getByLabel("Search in").selectOption("email");
    await admin.getByLabel("Match").selectOption("starts_with");
    await admin.getByLabel("Search", { exact: true }).fill(`web-target-${tag}`);
    await admin.getByRole("button", { name: "Search" }).click();
    const users = admin.getByRole("table", { name: "Users" });
    /** The table shows the previous answer while the next loads (aria-busy): wait for the new one. */
    const settled = (table: typeof users) => poll(() => table.getAttribute("aria-busy")).toBeNull();
    await poll(() => users.locator("tbody tr").count()).toBe(1);
    expect(await users.locator("tbody tr").innerText()).toContain(targetEmail);
    await poll(() => admin.getByRole("navigation", { name: "Users pages" }).getByRole("status").innerText()).toBe("1 to 1 of 1");
    // "contains" the tag: both users made with it.
    await admin.getByLabel("Match").selectOption("contains");
    await admin.getByLabel("Search", { exact: true }).fill(tag);
    await admin.getByRole("button", { name: "Search" }).click();
    await poll(() => users.locator("tbody tr").count()).toBe(2);
    // Sorting by name, both ways.
    await admin.getByRole("button", { name: "Name", exact: true }).click();
    await settled(users);
    expect(await admin.getByRole("columnheader", { name: "Name" }).getAttribute("aria-sort")).toBe("ascending");
    expect(await users.locator("tbody tr").first().innerText()).toContain("Other Person");
    await admin.getByRole("button", { name: "Name", exact: true }).click();
    await settled(users);
    expect(await admin.getByRole("columnheader", { name: "Name" }).getAttribute("aria-sort")).toBe("descending");
    expect(await users.locator("tbody tr").first().innerText()).toContain("Tom Target");
    await web.checkA11y(admin, "admin users");
    await web.screenshot(admin, "admin-users");

    await admin.getByRole("link", { name: "Tom Target" }).click();
    await admin.waitForURL("**/admin/users/**");
    const targetId = new URL(admin.url()).pathname.split("/").pop()!;
    // Two sessions: the sign-up's (made by Node's fetch) and the browser's. Revoke the first one only.
    const sessions = admin.getByRole("list", { name: "Sessions" }).getByRole("listitem");
    await poll(() => sessions.count()).toBe(2);
    await sessions
      .filter({ hasNotText: "Chrome" })
      .getByRole("button", { name: /^Revoke the session on Node\.js/ })
      .click();
    await poll(() => sessions.count()).toBe(1);
    expect(await sessions.innerText()).toContain("Chrome");
    await target.goto("/account");
    await poll(() => target.getByRole("heading", { level: 1 }).innerText()).toBe("Your account");
    expect(new URL(target.url()).pathname).toBe("/account");
    await web.checkA11y(admin, "admin user");
    await web.screenshot(admin, "admin-user");

    // Ban for a day with a reason: the target's open browser is signed out, their sign-in refused.
    await admin.getByLabel("Reason (optional)").fill("Sending spam");
    await admin.getByLabel("Duration").selectOption("86400");
    await admin.getByRole("button", { name: "Ban user" }).click();
    await poll(() => admin.locator("dl.facts").innerText()).toMatch(/Banned: Sending spam \(until .+\)/);
    await poll(() => admin.getByText("No active sessions.").count()).toBe(1);
    await target.goto("/account");
    await target.waitForURL((url) => url.pathname === "/sign-in");
    await target.getByLabel("Email or username").fill(targetEmail);
    await target.getByLabel("Password", { exact: true }).fill("password-456");
    await target.getByRole("button", { name: "Sign in" }).click();
    // The right password is told of the ban and its end (docs/adr/0052); a wrong one gets the generic failure.
    await poll(() => target.getByRole("alert").innerText()).toMatch(/^Your account is suspended until .+\.$/);
    expect(new URL(target.url()).pathname).toBe("/sign-in");

    // The "Banned" filter lists them.
    await admin.getByRole("link", { name: "Users" }).click();
    await admin.getByLabel("Show").selectOption("banned");
    // This suite's platform has one banned user (the list shows the previous page until the answer comes).
    await poll(() => users.locator("tbody tr").count()).toBe(1);
    expect(await users.locator("tbody").innerText()).toContain(targetEmail);
    await admin.goto(`/admin/users/${targetId}`);
    await admin.getByRole("button", { name: "Unban" }).click();
    await poll(() => admin.locator("dl.facts").innerText()).toContain("Active");

    // Impersonate: the banner on every page, and stop returns to the admin's own session.
    await admin.getByRole("button", { name: "Impersonate Tom Target" }).click();
    await admin.waitForURL("**/account");
    const banner = admin.getByRole("region", { name: "Impersonation" });
    await poll(() => banner.innerText()).toContain(`You are impersonating Tom Target (${targetEmail}).`);
    expect(await admin.getByRole("link", { name: "Admin" }).count()).toBe(0);
    await admin.getByRole("link", { name: "Auth Platform" }).click();
    await poll(() => admin.getByRole("heading", { level: 1 }).innerText()).toBe("Welcome, Tom Target");
    expect(await banner.count()).toBe(1);
    await web.checkA11y(admin, "impersonation banner");
    await web.screenshot(admin, "admin-impersonating");
    await admin.getByRole("button", { name: "Stop impersonating" }).click();
    await admin.waitForURL(`**/admin/users/${targetId}`);
    await poll(() => admin.getByRole("link", { name: "Admin" }).count()).toBe(1);
    expect(await banner.count()).toBe(0);

    // The audit log, filtered by the target.
    await admin.getByRole("link", { name: "Audit log" }).click();
    await admin.getByLabel("Target id").fill(targetId);
    await admin.getByRole("button", { name: "Filter" }).click();
    const audit = admin.getByRole("table", { name: "Audit events" });
    await settled(audit);
    await poll(() => audit.locator("tbody").innerText()).toContain("user.impersonate.stop");
    const actions = await audit.locator("tbody tr td:nth-child(2)").allInnerTexts();
    expect(actions).toEqual(expect.arrayContaining(["user.ban", "user.unban", "user.impersonate.start", "user.impersonate.stop"]));
    await web.checkA11y(admin, "audit log");
    await web.screenshot(admin, "admin-audit-log");

    // Remove, behind the typed email.
    await admin.goto(`/admin/users/${targetId}`);
    const remove = admin.getByRole("button", { name: "Remove user" });
    await poll(() => remove.isDisabled()).toBe(true);
    await admin.getByLabel(`Type ${targetEmail} to confirm`).fill("someone-else@example.com");
    expect(await remove.isDisabled()).toBe(true);
    await admin.getByLabel(`Type ${targetEmail} to confirm`).fill(targetEmail);
    await remove.click();
    await admin.waitForURL((url) => url.pathname === "/admin");
    await admin.getByLabel("Search", { exact: true }).fill(targetEmail);
    await admin.getByRole("button", { name: "Search" }).click();
    await poll(() => admin.getByRole("navigation", { name: "Users pages" }).getByRole("status").innerText()).toBe("No results");
  });

  it("sets a user's role and password from their page: the API answers the new role, the new password signs in and the old one no longer does", async () => {
    const adminEmail = uniqueEmail("web-admin-roles");
    const targetEmail = uniqueEmail("web-role-target");
    await signUpByApi(web.origin, { name: "Rita Roles", email: adminEmail, password: "password-123" });
    await signUpByApi(web.origin, { name: "Pat Password", email: targetEmail, password: "password-456" });
    await promoteWithOperatorCommand(adminEmail);
    const admin = await web.page();
    await signInOnScreen(admin, adminEmail, "password-123");
    await admin.goto("/admin");
    await admin.getByLabel("Search", { exact: true }).fill(targetEmail);
    await admin.getByRole("button", { name: "Search" }).click();
    await admin.getByRole("link", { name: "Pat Password" }).click();
    await admin.waitForURL("**/admin/users/**");
    const targetId = new URL(admin.url()).pathname.split("/").pop()!;

    const role = admin.getByRole("region", { name: "Role", exact: true });
    await poll(() => role.getByLabel("Role (comma-separated for several)").inputValue()).toBe("user");
    await role.getByLabel("Role (comma-separated for several)").fill("editor,support");
    await role.getByRole("button", { name: "Set role" }).click();
    await poll(() => role.getByRole("status").innerText()).toBe("The role is now editor,support.");
    const fromApi = await admin.evaluate((id) => fetch(`/api/auth/admin/get-user?id=${id}`).then((r) => r.json()), targetId);
    expect(fromApi).toMatchObject({ id: targetId, email: targetEmail, role: "editor,support" });

    const password = admin.getByRole("region", { name: "Password", exact: true });
    await password.getByLabel("New password for this user").fill("set-by-admin-1");
    await password.getByRole("button", { name: "Set password" }).click();
    await poll(() => password.getByRole("status").innerText()).toBe("The password has been set.");
    expect(await password.getByLabel("New password for this user").inputValue()).toBe("");
    await web.checkA11y(admin, "admin user after set role and password");
    await web.screenshot(admin, "admin-user-role-and-password");

    const signIn = (pw: string) =>
      fetch(`${web.origin}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: web.origin },
        body: JSON.stringify({ email: targetEmail, password: pw }),
      });
    expect((await signIn("password-456")).status).toBe(401);
    const answer = await signIn("set-by-admin-1");
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { user: { role: string } }).user.role).toBe("editor,support");
  });

  it("works on a 390 px wide screen: the users table scrolls inside its box, nothing off the page", async () => {
    const adminEmail = uniqueEmail("web-admin-mobile");
    await signUpByApi(web.origin, { name: "Mo Bile", email: adminEmail, password: "password-123" });
    await promoteWithOperatorCommand(adminEmail);
    const admin = await web.page({ mobile: true });
    await signInOnScreen(admin, adminEmail, "password-123");
    await admin.goto("/admin");
    await poll(() => admin.getByRole("table", { name: "Users" }).locator("tbody tr").count()).toBeGreaterThan(0);
    // Every element that reaches past the screen's right edge, named for the failure message.
    const overflowing = await admin.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > 390 && !el.closest(".table-wrap"))
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${Math.round(el.getBoundingClientRect().right)}`),
    );
    expect(overflowing).toEqual([]);
    expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await web.checkA11y(admin, "admin users (mobile)");
  });
});
