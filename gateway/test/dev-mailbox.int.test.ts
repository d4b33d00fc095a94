/**
 * GET /dev/outbox, the development mailbox (gateway/src/routes/dev-mailbox.ts), through the whole platform:
 * mail that identity sends on sign-up lands in the notification service's development outbox (no SMTP_URL)
 * and the gateway lists it. With SMTP_URL set the outbox answers NOT_FOUND; with NODE_ENV=production the
 * gateway does not mount the route at all (and without SMTP_URL there is no outbox to read).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { NotificationServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { call } from "@auth-platform/proto/rpc-client";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { type Platform, type PlatformOptions, startPlatform } from "../../testing/platform.js";
import { startSmtp, type TestSmtp } from "../../testing/smtp.js";
import { testClock } from "../../testing/test-clock.js";

interface OutboxEntry {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  template: string;
  createdAt: string;
  deliveredAt: string | null;
  links: string[];
}

const NOT_FOUND = { code: "NOT_FOUND", message: "Not found" };
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// Moved forward between two mails, for distinct creation times (the listing is newest first).
const clock = testClock();
afterEach(() => clock.restore());

async function signUp(platform: Platform, email = uniqueEmail("dev")) {
  const client = new TestClient(platform.baseURL);
  const res = await client.post("/sign-up/email", { name: "Ada", email, password: "password-123" });
  expect(res.status).toBe(200);
  return { client, email };
}

/** The outbox for one address, once it holds `count` messages. */
async function outboxOf(http: TestClient, to: string, count = 1): Promise<OutboxEntry[]> {
  const path = `/dev/outbox?to=${encodeURIComponent(to)}`;
  await expect.poll(async () => (await http.get(path)).body?.messages?.length, { timeout: 5_000 }).toBe(count);
  return (await http.get<{ messages: OutboxEntry[] }>(path)).body.messages;
}

/** A platform for one describe block, stopped after it. */
function usePlatform(options: () => PlatformOptions = () => ({})) {
  const state = {} as { platform: Platform; http: TestClient };
  beforeAll(async () => {
    state.platform = await startPlatform(options());
    state.http = new TestClient(state.platform.baseURL);
  });
  afterAll(async () => {
    await state.platform?.stop();
  });
  return state;
}

describe(`GET /dev/outbox with the development outbox (${backendLabel()})`, () => {
  const running = usePlatform();

  it("shows the sign-up's verification mail with its link, and the link verifies the address", async () => {
    const { platform, http } = running;
    const { client, email } = await signUp(platform);

    const [message] = await outboxOf(http, email);
    const res = await http.get(`/dev/outbox?to=${encodeURIComponent(email)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(message).toMatchObject({ to: email, subject: "Verify your email address for Auth Platform", template: "email-verification" });
    expect(message!.id).toEqual(expect.any(String));
    expect(message!.links).toHaveLength(1);
    const [link] = message!.links;
    expect(link!.startsWith(`${platform.baseURL}/verify-email?token=`)).toBe(true);
    expect(message!.text).toContain(link);
    expect(message!.html).toContain("<!doctype html>");
    expect(message!.html).toContain(`href="${link!.replace(/&/g, "&amp;")}"`);
    expect(Date.parse(message!.createdAt)).not.toBeNaN();
    expect(message!.deliveredAt === null || !Number.isNaN(Date.parse(message!.deliveredAt))).toBe(true);

    // The link works: following it verifies the address and lands on the app root (the default callbackURL).
    const verified = await client.get(link!.slice(platform.baseURL.length));
    expect({ status: verified.status, location: verified.headers.get("location") }).toEqual({ status: 302, location: "/" });
    expect((await client.get("/get-session")).body.user.emailVerified).toBe(true);
  });

  it("lists one address's messages newest first (the address in any case), everyone's without it, up to the limit", async () => {
    const { platform, http } = running;
    const { email } = await signUp(platform);
    await outboxOf(http, email);
    clock.advance(5); // distinct creation times, for the order below
    expect((await new TestClient(platform.baseURL).post("/forget-password", { email, redirectTo: "/reset" })).status).toBe(200);
    const mine = await outboxOf(http, email.toUpperCase(), 2);
    expect(mine.map((m) => m.template)).toEqual(["password-reset", "email-verification"]);
    expect(mine[0]!.links).toEqual([expect.stringMatching(new RegExp(`^${escapeRegExp(platform.baseURL)}/reset-password/[A-Za-z0-9]{24}\\?callbackURL=%2Freset$`))]);

    clock.advance(5);
    const other = await signUp(platform);
    const [otherMessage] = await outboxOf(http, other.email);
    const newest = await http.get("/dev/outbox?limit=1");
    expect(newest.body.messages.map((m: OutboxEntry) => m.id)).toEqual([otherMessage!.id]);
    const everyone = await http.get("/dev/outbox");
    const ids = everyone.body.messages.map((m: OutboxEntry) => m.id);
    expect(ids.slice(0, 3)).toEqual([otherMessage!.id, mine[0]!.id, mine[1]!.id]);
    expect(new Set(everyone.body.messages.map((m: OutboxEntry) => m.to))).toContain(other.email);
  });

  it("answers 400 naming the field for a bad limit", async () => {
    const res = await running.http.get("/dev/outbox?limit=0");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.message).toContain("limit");
  });
});

describe(`GET /dev/outbox with SMTP_URL set (${backendLabel()})`, () => {
  let smtp: TestSmtp;
  // Registered first: the SMTP server is up before the platform starts and stops after it.
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp?.stop();
  });
  const running = usePlatform(() => ({ env: { SMTP_URL: smtp.url } }));

  it("answers 404 NOT_FOUND: the mail went out over SMTP and the outbox lists nothing", async () => {
    const { platform, http } = running;
    const { email } = await signUp(platform);
    const mail = await smtp.waitFor(email, (m) => m.text.includes("/verify-email"));
    expect(mail.subject).toBe("Verify your email address for Auth Platform");

    for (const path of [`/dev/outbox?to=${encodeURIComponent(email)}`, "/dev/outbox"]) {
      const res = await http.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });
});

describe(`GET /dev/outbox with NODE_ENV=production (${backendLabel()})`, () => {
  // No SMTP_URL in production: no development outbox either (nothing kept), and the gateway does not mount the route.
  const running = usePlatform(() => ({ env: { NODE_ENV: "production" } }));

  it("is not mounted: 404 NOT_FOUND, and the notification service lists nothing either", async () => {
    const { platform, http } = running;
    const { email } = await signUp(platform);
    const notification = createGrpcClient(NotificationServiceClient, platform.env.NOTIFICATION_SERVICE_URL!, {
      tls: platform.grpcTls("gateway"),
      serverName: "notification",
    });
    try {
      await expect(call(notification, notification.listOutbox, { to: email, limit: 0 })).rejects.toMatchObject({ code: "NOT_FOUND" });
    } finally {
      notification.close();
    }

    for (const path of [`/dev/outbox?to=${encodeURIComponent(email)}`, "/dev/outbox", "/dev/outbox?limit=0"]) {
      const res = await http.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });
});
