/**
 * The bootstrap command, run as the operator runs it (a child process with the admin workload's
 * certificate): it creates the first admin, promotes an existing user, and is refused without a
 * certificate the identity service accepts for it.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ENTRY_POINTS, ROOT } from "../../../deploy/processes.js";
import { uniqueEmail } from "../../../testing/http.js";
import { workloadEnv } from "../../../testing/platform.js";
import { usePlatform } from "../../../testing/use-platform.js";

const platform = usePlatform();
const run = promisify(execFile);
const PASSWORD = "password-123";

function bootstrap(args: string[], env: Record<string, string>) {
  return run(process.execPath, ["--import", "tsx", join(ROOT, ENTRY_POINTS["admin-bootstrap"]), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    timeout: 30_000,
  });
}

describe("admin bootstrap command", () => {
  it("creates the first admin, who can then use the admin routes", async () => {
    const email = uniqueEmail("first-admin");
    const { stdout } = await bootstrap(["--email", email, "--name", "First"], { ...workloadEnv(platform.env, "admin"), ADMIN_BOOTSTRAP_PASSWORD: PASSWORD });
    expect(stdout).toMatch(new RegExp(`^created ${email} \\(id .+\\) with role admin`));
    const c = platform.client();
    expect((await c.post("/sign-in/email", { email, password: PASSWORD })).body.user.role).toBe("admin");
    expect((await c.get("/admin/list-users")).status).toBe(200);
  });

  it("promotes an existing user (no password needed), keeping the user's role beside admin, and again changes nothing", async () => {
    const c = platform.client();
    const email = uniqueEmail("promoted");
    await c.post("/sign-up/email", { name: "P", email, password: PASSWORD });
    expect((await c.get("/admin/list-users")).status).toBe(403);
    const env = workloadEnv(platform.env, "admin");
    expect((await bootstrap(["--email", email], env)).stdout).toMatch(/^promoted .* with role user,admin\n$/);
    expect((await bootstrap(["--email", email], env)).stdout).toMatch(/^promoted .* with role user,admin\n$/);
    expect((await c.get("/admin/list-users")).status).toBe(200);
  });

  it("fails plainly without an email, without a password for a new user, with a role that is not an admin role, and with another workload's certificate", async () => {
    const env = workloadEnv(platform.env, "admin");
    await expect(bootstrap([], env)).rejects.toMatchObject({ stderr: expect.stringContaining("usage: admin-bootstrap --email") });
    await expect(bootstrap(["--email", uniqueEmail("nobody")], env)).rejects.toMatchObject({ stderr: expect.stringContaining("ADMIN_BOOTSTRAP_PASSWORD") });
    const c = platform.client();
    const email = uniqueEmail("not-admin");
    await c.post("/sign-up/email", { name: "N", email, password: PASSWORD });
    await expect(bootstrap(["--email", email, "--role", "user"], env)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--role "user" is not an admin role (ADMIN_ROLES: admin)'),
    });
    expect((await c.get("/admin/list-users")).status).toBe(403);
    const asGateway = workloadEnv(platform.env, "gateway");
    await expect(bootstrap(["--email", uniqueEmail("x")], { ...asGateway, ADMIN_BOOTSTRAP_PASSWORD: PASSWORD })).rejects.toMatchObject({ code: 1 });
  });
});
