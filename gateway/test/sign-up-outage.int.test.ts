/**
 * Sign-up while the notification service is down (real gRPC, real SMTP): the user is created and answered
 * 200, the verification mail waits in identity's mail request queue (written with the user, one
 * transaction), and it is mailed once notification is back, once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel, dropDatabases, type TestDatabase } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import {
  platformEnv,
  type RunningGateway,
  type RunningIdentity,
  type RunningNotification,
  type RunningSession,
  startGateway,
  startIdentity,
  startNotification,
  startSession,
} from "../../testing/platform.js";
import { linkIn, startSmtp, type TestSmtp } from "../../testing/smtp.js";

const FAR_FUTURE = new Date(Date.UTC(9999, 0, 1));

let smtp: TestSmtp;
let env: Record<string, string>;
let databases: TestDatabase[];
let notification: RunningNotification;
let session: RunningSession;
let identity: RunningIdentity;
let gateway: RunningGateway;

beforeAll(async () => {
  smtp = await startSmtp();
  ({ env, databases } = await platformEnv({ env: { SMTP_URL: smtp.url, IDENTITY_SEND_VERIFICATION_ON_SIGN_UP: "true" } }));
  notification = await startNotification(env);
  session = await startSession(env);
  identity = await startIdentity(env);
  gateway = await startGateway(env);
});

afterAll(async () => {
  await gateway?.stop();
  await identity?.close();
  await session?.close();
  await notification?.close();
  await dropDatabases(databases ?? []);
  await smtp?.stop();
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
