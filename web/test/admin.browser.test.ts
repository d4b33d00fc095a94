/**
 * The admin area in the browser: a user promoted with the operator command (the
 * admin-bootstrap process, with the admin workload's certificate) finds a user by search, bans them (their
 * open browser is signed out, their sign-in refused), finds them under the "Banned" filter, unbans (and undoes
 * it), impersonates them (the banner on every page) and stops, reads the audit log with names beside the ids,
 * and removes the user; sets a user's role among the configured ones and a password (checked through the
 * API), each undone where the platform allows; creates users, with the catalogue's refusals next to the
 * fields. Every privileged action asks in a dialog first and says what it did. A non-admin never sees the
 * area.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ENTRY_POINTS, ROOT } from "../../deploy/processes.js";
import { uniqueEmail } from "../../testing/http.js";
import { workloadEnv } from "../../testing/platform.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

// The roles the role screen gives besides the default user role (admins give only configured roles).
const web = useWebApp({ env: { ADMIN_ASSIGNABLE_ROLES: "user,editor,support" } });
const run = promisify(execFile);

/** Presses a dialog's confirm button and waits for the dialog to close (the action done). */
async function confirmIn(page: Page, dialog: string, button: string): Promise<void> {
  const open = page.getByRole("dialog", { name: dialog });
  await open.getByRole("button", { name: button, exact: true }).click();
  await poll(() => open.count()).toBe(0);
}

/** The done notice of a section of the user's page (or of the users page): what the last action, or its undo, did. */
const notice = (page: Page, region: string) => page.getByRole("region", { name: region, exact: true }).getByRole("status");

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
    // It asks first, naming the session; cancelling changes nothing.
    const revokeDialog = admin.getByRole("dialog", { name: "Revoke this session?" });
    expect(await revokeDialog.innerText()).toContain("Node.js");
    await web.checkA11y(admin, "revoke session dialog");
    await revokeDialog.getByRole("button", { name: "Cancel" }).click();
    expect(await sessions.count()).toBe(2);
    await sessions
      .filter({ hasNotText: "Chrome" })
      .getByRole("button", { name: /^Revoke the session on Node\.js/ })
      .click();
    await confirmIn(admin, "Revoke this session?", "Revoke session");
    await poll(() => sessions.count()).toBe(1);
    expect(await sessions.innerText()).toContain("Chrome");
    expect(await notice(admin, "Sessions").innerText()).toContain("The session on Node.js");
    await target.goto("/account");
    await poll(() => target.getByRole("heading", { level: 1 }).innerText()).toBe("Your account");
    expect(new URL(target.url()).pathname).toBe("/account");
    await web.checkA11y(admin, "admin user");
    await web.screenshot(admin, "admin-user");

    // Ban for a day with a reason: the target's open browser is signed out, their sign-in refused.
    await admin.getByLabel("Reason (optional)").fill("Sending spam");
    await admin.getByLabel("Duration").selectOption("86400");
    await admin.getByRole("button", { name: "Ban user" }).click();
    expect(await admin.getByRole("dialog", { name: "Ban Tom Target?" }).innerText()).toContain("for 1 day");
    await confirmIn(admin, "Ban Tom Target?", "Ban user");
    await poll(() => admin.locator("dl.facts").innerText()).toMatch(/Banned: Sending spam \(until .+\)/);
    expect(await notice(admin, "Ban").innerText()).toContain("Tom Target is banned.");
    const banOf = async () =>
      (await admin.evaluate((id) => fetch(`/api/auth/admin/get-user?id=${id}`).then((r) => r.json()), targetId)) as { banReason: string; banExpires: string };
    const firstBan = await banOf();
    await poll(() => admin.getByText("No active sessions.").count()).toBe(1);
    await target.goto("/account");
    await target.waitForURL((url) => url.pathname === "/sign-in");
    await target.getByLabel("Email or username").fill(targetEmail);
    await target.getByLabel("Password", { exact: true }).fill("password-456");
    await target.getByRole("button", { name: "Sign in", exact: true }).click();
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
    await confirmIn(admin, "Lift the ban on Tom Target?", "Unban");
    await poll(() => admin.locator("dl.facts").innerText()).toContain("Active");
    // Unbanning is undone by the same ban again: its reason and the time it had left.
    await notice(admin, "Ban").getByRole("button", { name: "Undo" }).click();
    await poll(() => notice(admin, "Ban").innerText()).toContain("Tom Target is banned again.");
    await poll(() => admin.locator("dl.facts").innerText()).toMatch(/Banned: Sending spam \(until .+\)/);
    const again = await banOf();
    expect(again.banReason).toBe("Sending spam");
    expect(Math.abs(Date.parse(again.banExpires) - Date.parse(firstBan.banExpires))).toBeLessThan(2_000);
    await admin.getByRole("button", { name: "Unban" }).click();
    await confirmIn(admin, "Lift the ban on Tom Target?", "Unban");
    await poll(() => admin.locator("dl.facts").innerText()).toContain("Active");

    // Impersonate: the banner on every page, and stop returns to the admin's own session.
    await admin.getByRole("button", { name: "Impersonate Tom Target" }).click();
    expect(await admin.getByRole("dialog", { name: "Impersonate Tom Target?" }).innerText()).toContain("recorded in the audit log");
    await admin.getByRole("dialog", { name: "Impersonate Tom Target?" }).getByRole("button", { name: "Impersonate", exact: true }).click();
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
    // Names and emails beside the ids: the admin who acted, the user acted upon, and who was impersonating.
    const banRow = audit
      .locator("tbody tr")
      .filter({ has: admin.locator("td:nth-child(2)", { hasText: /^user\.ban$/ }) })
      .first();
    expect(await banRow.locator("td:nth-child(4)").innerText()).toMatch(new RegExp(`Ada Admin\\s+${adminEmail}`));
    expect(await banRow.locator("td:nth-child(5)").innerText()).toMatch(new RegExp(`Tom Target\\s+${targetEmail}\\s+${targetId}`));
    const stopRow = audit.locator("tbody tr").filter({ has: admin.locator("td:nth-child(2)", { hasText: /^user\.impersonate\.stop$/ }) });
    expect(await stopRow.locator("td:nth-child(4)").innerText()).toMatch(/^Tom Target[\s\S]*impersonated by\s+Ada Admin/);
    // The columns fit the page at 1280 px: nothing scrolls sideways.
    expect(await admin.locator(".table-wrap").evaluate((wrap) => wrap.scrollWidth - wrap.clientWidth)).toBe(0);
    await web.checkA11y(admin, "audit log");
    await web.screenshot(admin, "admin-audit-log");

    // Remove, behind the dialog; the users page says it happened.
    await admin.goto(`/admin/users/${targetId}`);
    await admin.getByRole("region", { name: "Remove user" }).getByRole("button", { name: "Remove user" }).click();
    expect(await admin.getByRole("dialog", { name: "Remove Tom Target?" }).innerText()).toContain(`Tom Target (${targetEmail}) is deleted`);
    await web.checkA11y(admin, "remove user dialog");
    await confirmIn(admin, "Remove Tom Target?", "Remove user");
    await admin.waitForURL((url) => url.pathname === "/admin");
    await poll(() => admin.locator(".done-notice").innerText()).toContain(`Tom Target (${targetEmail}) was removed.`);
    // The log keeps the id only: the removed user's name and email are no longer shown.
    await admin.goto("/admin/audit");
    await admin.getByLabel("Target id").fill(targetId);
    await admin.getByRole("button", { name: "Filter" }).click();
    await poll(() => audit.locator("tbody").innerText()).toContain("user.remove");
    expect(await audit.locator("tbody").innerText()).not.toContain(targetEmail);
    expect(await audit.locator("tbody tr td:nth-child(5)").first().innerText()).toMatch(new RegExp(`no longer exists\\s+${targetId}`));
    await admin.goto("/admin");
    await admin.getByLabel("Search", { exact: true }).fill(targetEmail);
    await admin.getByRole("button", { name: "Search" }).click();
    await poll(() => admin.getByRole("navigation", { name: "Users pages" }).getByRole("status").innerText()).toBe("No results");
    // The suite's longest journey: some forty screens and dialogs on a busy machine.
  }, 240_000);

  it("sets a user's role among the configured ones and a password, each asked first; role, ban and revocations say what they did and undo", async () => {
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
    const signInByApi = (pw: string) =>
      fetch(`${web.origin}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: web.origin },
        body: JSON.stringify({ email: targetEmail, password: pw }),
      });

    const roleOf = async () => ((await admin.evaluate((id) => fetch(`/api/auth/admin/get-user?id=${id}`).then((r) => r.json()), targetId)) as { role: string }).role;
    // The roles offered are the configured ones (ADMIN_ASSIGNABLE_ROLES, then ADMIN_ROLES), the user's own marked.
    const role = admin.getByRole("region", { name: "Role", exact: true });
    const roleChoice = role.getByLabel("Role", { exact: true });
    await poll(() => roleChoice.locator("option").allInnerTexts()).toEqual(["user (current)", "editor", "support", "admin"]);
    expect(await roleChoice.evaluate((el) => el.tagName)).toBe("SELECT");
    expect(await role.getByRole("button", { name: "Change role" }).isDisabled()).toBe(true);
    await roleChoice.selectOption("editor");
    await role.getByRole("button", { name: "Change role" }).click();
    expect(await admin.getByRole("dialog", { name: "Change the role of Pat Password?" }).innerText()).toContain("From user to editor.");
    await confirmIn(admin, "Change the role of Pat Password?", "Change role");
    await poll(() => notice(admin, "Role").innerText()).toContain("The role is now editor.");
    expect(await roleOf()).toBe("editor");
    await poll(() => roleChoice.locator("option:checked").innerText()).toBe("editor (current)");
    // Undo gives the old role back.
    await notice(admin, "Role").getByRole("button", { name: "Undo" }).click();
    await poll(() => notice(admin, "Role").innerText()).toContain("The role is user again.");
    expect(await roleOf()).toBe("user");
    await poll(() => roleChoice.locator("option:checked").innerText()).toBe("user (current)");

    const password = admin.getByRole("region", { name: "Password", exact: true });
    // A refusal shows in the dialog and takes the focus; the same refusal again is a new alert, focused again.
    await password.getByLabel("New password for this user").fill("short");
    await password.getByRole("button", { name: "Set password" }).click();
    const passwordDialog = admin.getByRole("dialog", { name: "Set a new password for Pat Password?" });
    await passwordDialog.getByRole("button", { name: "Set password" }).click();
    const focusedAlert = () => admin.evaluate(() => (document.activeElement?.getAttribute("role") === "alert" ? document.activeElement.textContent : null));
    await poll(focusedAlert).toBe("Password too short");
    await passwordDialog.getByRole("alert").evaluate((alert) => alert.setAttribute("data-seen", ""));
    await admin.evaluate(() => (document.activeElement as HTMLElement).blur());
    await passwordDialog.getByRole("button", { name: "Set password" }).click();
    await poll(() => passwordDialog.locator("[data-seen]").count()).toBe(0);
    await poll(focusedAlert).toBe("Password too short");
    await passwordDialog.getByRole("button", { name: "Cancel" }).click();
    await password.getByLabel("New password for this user").fill("set-by-admin-1");
    await password.getByRole("button", { name: "Set password" }).click();
    expect(await admin.getByRole("dialog", { name: "Set a new password for Pat Password?" }).innerText()).toContain("cannot be undone");
    await confirmIn(admin, "Set a new password for Pat Password?", "Set password");
    await poll(() => notice(admin, "Password").innerText()).toContain("The password has been set.");
    expect(await notice(admin, "Password").getByRole("button", { name: "Undo" }).count()).toBe(0);
    expect(await password.getByLabel("New password for this user").inputValue()).toBe("");

    // A ban, undone by the notice's Undo.
    await admin.getByRole("button", { name: "Ban user" }).click();
    await confirmIn(admin, "Ban Pat Password?", "Ban user");
    await poll(() => admin.locator("dl.facts").innerText()).toContain("Banned: No reason");
    await notice(admin, "Ban").getByRole("button", { name: "Undo" }).click();
    await poll(() => notice(admin, "Ban").innerText()).toContain("The ban on Pat Password has been lifted.");
    await poll(() => admin.locator("dl.facts").innerText()).toContain("Active");

    // Every session at once (the ban ended those there were: sign in again first), asked first.
    expect((await signInByApi("set-by-admin-1")).status).toBe(200);
    await admin.reload();
    const sessions = admin.getByRole("list", { name: "Sessions" }).getByRole("listitem");
    await poll(() => sessions.count()).toBe(1);
    await admin.getByRole("button", { name: "Revoke all sessions" }).click();
    await confirmIn(admin, "Revoke all sessions of Pat Password?", "Revoke all sessions");
    await poll(() => admin.getByText("No active sessions.").count()).toBe(1);
    expect(await notice(admin, "Sessions").innerText()).toContain("Every session of Pat Password has ended.");
    await web.checkA11y(admin, "admin user after set role and password");
    await web.screenshot(admin, "admin-user-role-and-password");

    expect((await signInByApi("password-456")).status).toBe(401);
    const answer = await signInByApi("set-by-admin-1");
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { user: { role: string } }).user.role).toBe("user");
  });

  it("creates users, with or without a password, answers refusals next to the field (the newest, announced again), and lists last sign-ins", async () => {
    const adminEmail = uniqueEmail("web-admin-create");
    const takenEmail = uniqueEmail("web-taken");
    await signUpByApi(web.origin, { name: "Cora Create", email: adminEmail, password: "password-123" });
    await signUpByApi(web.origin, { name: "Tina Taken", email: takenEmail, password: "password-456" });
    await promoteWithOperatorCommand(adminEmail);
    const admin = await web.page();
    await signInOnScreen(admin, adminEmail, "password-123");
    await admin.goto("/admin");
    const create = admin.getByRole("region", { name: "Create a user" });
    // The role is a choice: the platform's default, or one of the configured roles.
    await poll(() => create.getByLabel("Role").locator("option").allInnerTexts()).toEqual(["The platform's default role", "user", "editor", "support", "admin"]);

    // An address in use: the refusal is next to the email field, which takes the focus.
    await create.getByLabel("Name").fill("Nina New");
    await create.getByLabel("Email").fill(takenEmail);
    await create.getByRole("button", { name: "Create user" }).click();
    const emailError = create.locator(".field", { has: admin.getByLabel("Email") }).getByRole("alert");
    await poll(() => emailError.innerText()).toBe("User already exists");
    expect(await create.getByLabel("Email").getAttribute("aria-invalid")).toBe("true");
    expect(await admin.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("email");
    // The same refusal again is a new alert (announced again), not the old one left in place.
    await emailError.evaluate((alert) => alert.setAttribute("data-seen", ""));
    await create.getByRole("button", { name: "Create user" }).click();
    await poll(() => create.locator("[data-seen]").count()).toBe(0);
    await poll(() => emailError.innerText()).toBe("User already exists");
    // A newer, different refusal replaces it: the password's, by its field.
    const newEmail = uniqueEmail("web-created");
    await create.getByLabel("Email").fill(newEmail);
    await create.getByLabel("Password (optional)").fill("short");
    await create.getByRole("button", { name: "Create user" }).click();
    const passwordError = create.locator(".field", { has: admin.getByLabel("Password (optional)") }).getByRole("alert");
    await poll(() => passwordError.innerText()).toBe("Password too short");
    expect(await create.getByRole("alert").count()).toBe(1);
    await web.checkA11y(admin, "create user refused");

    // No password (a password reset or a social sign-in gets the user in), an editor.
    await create.getByLabel("Password (optional)").fill("");
    await create.getByLabel("Role").selectOption("editor");
    await create.getByRole("button", { name: "Create user" }).click();
    await poll(() => notice(admin, "Create a user").innerText()).toContain(`Nina New (${newEmail}) was created.`);
    expect(await create.getByLabel("Email").inputValue()).toBe("");
    const created = await admin.evaluate((email) => fetch(`/api/auth/admin/list-users?searchValue=${encodeURIComponent(email)}`).then((r) => r.json()), newEmail);
    expect(created.users).toEqual([expect.objectContaining({ name: "Nina New", role: "editor", lastSignInAt: null })]);

    // The users table: last sign-in, "Never" for the user just created, a date for the admin signed in.
    const users = admin.getByRole("table", { name: "Users" });
    await admin.getByLabel("Search", { exact: true }).fill(newEmail);
    await admin.getByRole("button", { name: "Search" }).click();
    await poll(() => users.locator("tbody tr").count()).toBe(1);
    const lastSignInColumn = (await users.locator("thead th").allInnerTexts()).findIndex((name) => name.trim() === "Last sign-in") + 1;
    expect(lastSignInColumn).toBeGreaterThan(0);
    expect(await users.locator(`tbody tr td:nth-child(${lastSignInColumn})`).innerText()).toBe("Never");
    await admin.getByLabel("Search", { exact: true }).fill(adminEmail);
    await admin.getByRole("button", { name: "Search" }).click();
    await poll(() => users.locator("tbody").innerText()).toContain(adminEmail);
    const signedIn = users.locator(`tbody tr td:nth-child(${lastSignInColumn}) time`);
    expect(Math.abs(Date.parse((await signedIn.getAttribute("datetime"))!) - Date.now())).toBeLessThan(5 * 60_000);

    // Undo removes the user created.
    await notice(admin, "Create a user").getByRole("button", { name: "Undo" }).click();
    await poll(() => notice(admin, "Create a user").innerText()).toContain(`${newEmail} was removed again.`);
    const gone = await admin.evaluate((email) => fetch(`/api/auth/admin/list-users?searchValue=${encodeURIComponent(email)}`).then((r) => r.json()), newEmail);
    expect(gone.users).toEqual([]);
  });

  it("speaks the browser's language: the admin screens in German", async () => {
    const adminEmail = uniqueEmail("web-admin-de");
    await signUpByApi(web.origin, { name: "Dora Deutsch", email: adminEmail, password: "password-123" });
    await promoteWithOperatorCommand(adminEmail);
    const context = await web.browser.newContext({ baseURL: web.origin, locale: "de-DE", viewport: { width: 1280, height: 900 } });
    try {
      const admin = await context.newPage();
      await admin.goto("/sign-in");
      // The sign-in screen is another screen's: sign in through the API, with the page's cookies.
      const answer = await admin.evaluate(
        (email) =>
          fetch("/api/auth/sign-in/email", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "password-123" }) }).then(
            (r) => r.status,
          ),
        adminEmail,
      );
      expect(answer).toBe(200);
      await admin.goto("/admin");
      await poll(() => admin.getByRole("heading", { level: 1 }).innerText()).toBe("Benutzer");
      const users = admin.getByRole("table", { name: "Benutzer" });
      expect(await users.locator("thead").innerText()).toContain("Letzte Anmeldung");
      expect(await admin.getByRole("region", { name: "Benutzer anlegen" }).getByLabel("Passwort (optional)").count()).toBe(1);
      await admin.getByRole("link", { name: "Audit-Log" }).click();
      await poll(() => admin.getByRole("heading", { level: 1 }).innerText()).toBe("Audit-Log");
      await web.checkA11y(admin, "admin in German");
    } finally {
      await context.close();
    }
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

    // The audit log reads as a card per event, each value under its column's name: nothing to scroll sideways.
    await admin.goto("/admin/audit");
    const audit = admin.getByRole("table", { name: "Audit events" });
    await poll(() => audit.locator("tbody tr").count()).toBeGreaterThan(0);
    const wide = await admin.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > 390)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${Math.round(el.getBoundingClientRect().right)}`),
    );
    expect(wide).toEqual([]);
    const labels = await audit
      .locator("tbody tr")
      .first()
      .locator("td")
      .evaluateAll((cells) => cells.map((cell) => getComputedStyle(cell, "::before").content));
    expect(labels).toEqual(['"When"', '"Action"', '"Outcome"', '"Actor"', '"Target"', '"Address"']);
    await web.checkA11y(admin, "audit log (mobile)");
    await web.screenshot(admin, "admin-audit-log-mobile");
  });
});
