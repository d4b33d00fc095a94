/** Fixtures of the admin suites: an admin (promoted in identity's store, as the bootstrap command does) and users. */
import { expect } from "vitest";
import { type TestClient, uniqueEmail } from "../../testing/http.js";
import type { PlatformUnderTest } from "../../testing/use-platform.js";

export const PASSWORD = "password-123";

/** Signs a user up; the client holds the user's session. */
export async function aUser(platform: PlatformUnderTest, name = "Grace"): Promise<{ c: TestClient; email: string; id: string }> {
  const c = platform.client();
  const email = uniqueEmail(name.toLowerCase());
  const res = await c.post("/sign-up/email", { name, email, password: PASSWORD });
  expect(res.status).toBe(200);
  return { c, email, id: res.body.user.id };
}

/** A user given the admin role, signed in afresh (so the session carries the role). */
export async function anAdmin(platform: PlatformUnderTest, role = "admin"): Promise<{ c: TestClient; email: string; id: string; token: string }> {
  const { email, id } = await aUser(platform, "Ada");
  await platform.services.identity.deps.store.updateUser(id, { role });
  const c = platform.client();
  const res = await c.post("/sign-in/email", { email, password: PASSWORD });
  expect(res.status).toBe(200);
  return { c, email, id, token: res.body.token };
}
