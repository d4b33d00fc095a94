/** Fixtures shared by the organization suites: signed-up users, organizations, members by invitation. */
import { expect } from "vitest";
import { type TestClient, uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import type { PlatformUnderTest } from "../../testing/use-platform.js";

export interface Person {
  c: TestClient;
  email: string;
  user: { id: string; name: string; email: string };
}

let slugs = 0;
/** A slug no other test uses. */
export const uniqueSlug = (label = "org") => `${label}-${Date.now().toString(36)}-${++slugs}`;

/** Signs a user up through the HTTP API; the client holds the session. */
export async function person(platform: PlatformUnderTest, name = "Ada"): Promise<Person> {
  const c = platform.client();
  const email = uniqueEmail(name.toLowerCase());
  const res = await c.post("/sign-up/email", { name, email, password: "password-123" });
  expect(res.status).toBe(200);
  return { c, email, user: res.body.user };
}

/** Verifies `who`'s address by the link mailed to it (the platform needs `smtp`): invitations are listed only then. */
export async function verifyEmail(platform: PlatformUnderTest, who: Person): Promise<void> {
  const mail = await platform.smtp.waitFor(who.email, (m) => m.text.includes("/verify-email"));
  await platform.follow(who.c, linkIn(mail, "/verify-email"));
  expect((await who.c.get("/get-session")).body.user).toMatchObject({ email: who.email, emailVerified: true });
}

/** Creates an organization as `owner`; answers its body (with members). */
export async function organizationOf(owner: Person, slug = uniqueSlug()): Promise<{ id: string; slug: string; name: string; members: any[] }> {
  const res = await owner.c.post("/organization/create", { name: `Org ${slug}`, slug });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Makes `who` a member with `role` through an invitation from `inviter`; answers the member. */
export async function join(inviter: Person, who: Person, organizationId: string, role = "member"): Promise<{ id: string; role: string; userId: string }> {
  const invited = await inviter.c.post("/organization/invite-member", { email: who.email, role, organizationId });
  expect(invited.status, JSON.stringify(invited.body)).toBe(200);
  const accepted = await who.c.post("/organization/accept-invitation", { invitationId: invited.body.id });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return accepted.body.member;
}

/** The caller's active organization id as get-session serves it. */
export async function activeOf(p: Person): Promise<string | null> {
  const res = await p.c.get("/get-session");
  return res.body.session.activeOrganizationId;
}

/** The status and catalogue code of a refusal. */
export const refusal = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.code, message: res.body?.message });
