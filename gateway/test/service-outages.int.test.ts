/**
 * Writes while another service is down (real gRPC, real SMTP): a sign-up while the notification service is
 * stopped is answered 200 and its verification mail follows once notification is back (identity's mail
 * request queue, written with the user).
 *
 * Organization writes while another service is down (real gRPC, real SMTP): an invitation made while the
 * notification service is stopped is answered 200 and mailed once it is back (the invitation mail outbox);
 * an organization/create while identity is stopped is answered 503 with nothing created, and the client's
 * retry with the same slug succeeds once identity is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel, dropDatabases, type TestDatabase } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import {
  platformEnv,
  type RunningGateway,
  type RunningIdentity,
  type RunningNotification,
  type RunningOrganization,
  type RunningSession,
  startGateway,
  startIdentity,
  startNotification,
  startOrganization,
  startSession,
} from "../../testing/platform.js";
import { linkIn, startSmtp, type TestSmtp } from "../../testing/smtp.js";
import { uniqueSlug } from "./organization-fixtures.js";

const APP_URL = "https://app.example.test";
const FAR_FUTURE = new Date(Date.UTC(9999, 0, 1));

let smtp: TestSmtp;
let env: Record<string, string>;
let databases: TestDatabase[];
let notification: RunningNotification;
let session: RunningSession;
let identity: RunningIdentity;
let organization: RunningOrganization;
let gateway: RunningGateway;

beforeAll(async () => {
  smtp = await startSmtp();
  ({ env, databases } = await platformEnv({ env: { SMTP_URL: smtp.url, AUTH_APP_URL: APP_URL, IDENTITY_SEND_VERIFICATION_ON_SIGN_UP: "true" } }));
  notification = await startNotification(env);
  // Session before identity: identity's start-up backfill calls it at once.
  session = await startSession(env);
  identity = await startIdentity(env);
  organization = await startOrganization(env);
  gateway = await startGateway(env);
});

afterAll(async () => {
  await gateway?.close();
  await organization?.close();
  await identity?.close();
  await session?.close();
  await notification?.close();
  await dropDatabases(databases ?? []);
  await smtp?.stop();
});

async function signedUp(name: string) {
  const c = new TestClient(`${gateway.origin}/api/auth`);
  const email = uniqueEmail(name.toLowerCase());
  const res = await c.post("/sign-up/email", { name, email, password: "password-123" });
  expect(res.status).toBe(200);
  return { c, email, user: res.body.user as { id: string } };
}

const invitationMails = (email: string) => smtp.mails.filter((m) => m.to.includes(email) && m.text.includes("/accept-invitation/"));

describe(`organization writes during an outage (${backendLabel()})`, () => {
  it("an invitation made while notification is down answers 200 and is mailed once notification is back", async () => {
    const ada = await signedUp("Ada");
    const grace = await signedUp("Grace");
    const created = await ada.c.post("/organization/create", { name: "Engines", slug: uniqueSlug("outbox") });
    expect(created.status).toBe(200);

    await notification.close();
    const invited = await ada.c.post("/organization/invite-member", { email: grace.email, role: "member" });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    expect(invited.body).toMatchObject({ email: grace.email, status: "pending", organizationId: created.body.id });
    expect((await ada.c.get("/organization/list-invitations")).body.map((i: { id: string }) => i.id)).toEqual([invited.body.id]);
    // The worker tried, failed, and kept the mail for a later attempt; nothing was mailed.
    const queue = organization.deps.store;
    await expect
      .poll(async () => (await queue.findDueInvitationMails(FAR_FUTURE, 100)).some((m) => m.invitationId === invited.body.id && m.attempts >= 1 && m.leaseUntil === null), {
        timeout: 10_000,
      })
      .toBe(true);
    expect(invitationMails(grace.email)).toHaveLength(0);

    notification = await startNotification(env);
    const mail = await smtp.waitFor(grace.email, (m) => m.text.includes("/accept-invitation/"), 20_000);
    expect(linkIn(mail, "/accept-invitation/")).toBe(`${APP_URL}/accept-invitation/${invited.body.id}`);
    expect(mail.subject).toContain("Ada invited you to join Engines");
    await expect.poll(async () => (await queue.findDueInvitationMails(FAR_FUTURE, 100)).filter((m) => m.invitationId === invited.body.id), { timeout: 10_000 }).toEqual([]);
    expect(invitationMails(grace.email)).toHaveLength(1);

    const accepted = await grace.c.post("/organization/accept-invitation", { invitationId: invited.body.id });
    expect(accepted.status).toBe(200);
  });

  it("organization/create while identity is down answers 503 with nothing created; the retry with the same slug succeeds", async () => {
    const ada = await signedUp("Ada");
    const slug = uniqueSlug("identity-down");

    await identity.close();
    const down = await ada.c.post("/organization/create", { name: "Engines", slug });
    expect(down).toMatchObject({ status: 503, body: { code: "SERVICE_UNAVAILABLE" } });
    expect(await organization.deps.store.findOrganizationBySlug(slug)).toBeNull();
    expect(await organization.deps.store.countMemberships(ada.user.id)).toBe(0);
    expect((await ada.c.get("/get-session")).body.session.activeOrganizationId ?? null).toBeNull();

    identity = await startIdentity(env);
    const retried = await eventually(async () => {
      const res = await ada.c.post("/organization/create", { name: "Engines", slug });
      if (res.status === 503) throw new Error("identity not reachable yet");
      return res;
    });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({ slug, members: [expect.objectContaining({ userId: ada.user.id, role: "owner" })] });
    expect((await ada.c.get("/get-session")).body.session.activeOrganizationId).toBe(retried.body.id);
  });
});

const verificationMails = (email: string) => smtp.mails.filter((m) => m.to.includes(email) && m.text.includes("/verify-email"));

describe(`sign-up while notification is down (${backendLabel()})`, () => {
  it("answers 200 with the user and its session, and the verification mail follows once notification is back", async () => {
    const client = new TestClient(`${gateway.origin}/api/auth`);
    const email = uniqueEmail("outage");

    await notification.close();
    const signedUp = await client.post("/sign-up/email", { name: "Ada", email, password: "password-123" });
    expect(signedUp.status, JSON.stringify(signedUp.body)).toBe(200);
    expect(signedUp.body.user).toMatchObject({ email, emailVerified: false });
    expect((await client.get("/get-session")).body.user.email).toBe(email);
    // The request's own attempt failed; the mail request waits for a later one, and nothing was mailed.
    const queue = identity.deps.store;
    await expect.poll(async () => (await queue.findDueMailRequests(FAR_FUTURE, 100)).some((r) => r.email === email && r.attempts >= 1), { timeout: 10_000 }).toBe(true);
    expect(verificationMails(email)).toHaveLength(0);
    // A retry of the sign-up meets the user it made, as it would after any successful sign-up.
    expect((await new TestClient(`${gateway.origin}/api/auth`).post("/sign-up/email", { name: "Ada", email, password: "password-123" })).status).toBe(422);

    notification = await startNotification(env);
    const mail = await smtp.waitFor(email, (m) => m.text.includes("/verify-email"), 30_000);
    expect(linkIn(mail, "/verify-email")).toContain("token=");
    await expect.poll(async () => (await queue.findDueMailRequests(FAR_FUTURE, 100)).filter((r) => r.email === email), { timeout: 10_000 }).toEqual([]);
    expect(verificationMails(email)).toHaveLength(1);
  });
});
