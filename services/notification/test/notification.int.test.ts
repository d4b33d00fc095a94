/**
 * The notification service end to end: real gRPC on loopback, real migrations (SQLite, or PostgreSQL with
 * TEST_DATABASE_URL), and a real SMTP server (smtp-server) receiving the mail.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Template } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { call } from "@auth-platform/proto/rpc-client";
import { backendLabel, createTestDatabase, type TestDatabase } from "../../../testing/databases.js";
import { freePorts } from "../../../testing/platform.js";
import { startSmtp, type TestSmtp } from "../../../testing/smtp.js";
import { testClock } from "../../../testing/test-clock.js";
import { startNotification, type RunningNotification } from "./harness.js";

const APP = { APP_NAME: "Acme Auth", MAIL_FROM: "Acme Auth <no-reply@acme.test>", AUTH_APP_URL: "https://app.acme.test" };
/** Fast retries, so an outage of a few hundred milliseconds spans several attempts. */
const FAST = { NOTIFICATION_RETRY_BASE_MS: "40", NOTIFICATION_RETRY_MAX_MS: "160", NOTIFICATION_POLL_INTERVAL_MS: "50" };
const SMTP_USER = "mailer";
const SMTP_PASS = "mailer-password";
/** The test SMTP server, requiring AUTH as SMTP_USER. */
const startMailer = (port = 0) => startSmtp({ port, auth: { user: SMTP_USER, pass: SMTP_PASS } });
const smtpUrl = (port: number) => `smtp://${SMTP_USER}:${SMTP_PASS}@127.0.0.1:${port}`;
// Moved forward between two mails, for distinct creation times (the listing is newest first).
const clock = testClock();
afterEach(() => clock.restore());

const VARIABLES: Record<string, string> = {
  name: "Ada",
  email: "ada@example.com",
  new_email: "ada@new.example.com",
  organization_name: "Analytical Engines",
  inviter_name: "Charles",
  role: "admin",
  code: "482913",
};
const TEMPLATES = [
  Template.TEMPLATE_EMAIL_VERIFICATION,
  Template.TEMPLATE_PASSWORD_RESET,
  Template.TEMPLATE_CHANGE_EMAIL,
  Template.TEMPLATE_DELETE_ACCOUNT,
  Template.TEMPLATE_ORGANIZATION_INVITATION,
  Template.TEMPLATE_SIGN_IN_CODE,
  Template.TEMPLATE_CHANGE_EMAIL_NEW_ADDRESS,
];

let n = 0;
const recipient = () => `user${++n}-${Date.now().toString(36)}@example.com`;

async function send(service: RunningNotification, request: { to: string; template: Template; variables?: Record<string, string>; idempotencyKey?: string; language?: string }) {
  const { messageId } = await call(service.client, service.client.sendEmail, { variables: {}, idempotencyKey: "", ...request });
  return messageId;
}

describe(`notification service over SMTP (${backendLabel()})`, () => {
  let db: TestDatabase;
  let smtp: TestSmtp;
  let service: RunningNotification;
  beforeAll(async () => {
    db = await createTestDatabase("notification");
    smtp = await startMailer();
    service = await startNotification({ ...APP, ...FAST, NOTIFICATION_DATABASE_URL: db.url, SMTP_URL: smtpUrl(smtp.port) });
  });
  afterAll(async () => {
    await service?.stop();
    await smtp?.stop();
    await db?.drop();
  });

  it.each(TEMPLATES)("delivers template %s with text and HTML parts, the link and a stable Message-ID", async (template) => {
    const to = recipient();
    const url = `https://acme.test/api/auth/action?token=tok-${template}&callbackURL=%2Fdone`;
    const id = await send(service, { to, template, variables: { ...VARIABLES, url } });
    await expect.poll(() => smtp.mails.filter((m) => m.envelopeTo.includes(to)).length, { timeout: 5_000 }).toBe(1);
    const mail = smtp.mails.find((m) => m.envelopeTo.includes(to))!;
    expect(mail.user).toBe(SMTP_USER);
    expect(mail.headers["message-id"]).toBe(`<${id}@acme.test>`);
    expect(mail.headers.from).toBe("Acme Auth <no-reply@acme.test>");
    expect(mail.headers.to).toBe(to);
    expect(mail.headers["auto-submitted"]).toBe("auto-generated");
    expect(mail.headers["content-type"]).toMatch(/^multipart\/alternative/);
    expect(mail.headers.subject).toContain("Acme Auth");
    expect(mail.text).toContain(url);
    expect(mail.html).toContain(`href="${url.replace(/&/g, "&amp;")}"`);
    expect(mail.text).toContain("https://app.acme.test");
    if (template === Template.TEMPLATE_SIGN_IN_CODE) {
      expect(mail.text).toContain("482913");
      expect(mail.headers.subject).not.toContain("482913");
    }
    await expect.poll(async () => (await service.registry.store.findById(id))!.status).toBe("delivered");
    // Sent: the link (a live secret) no longer sits in the outbox.
    expect(await service.registry.store.findById(id)).toMatchObject({ attempts: 1, text: "", html: "", links: [] });
  });

  it("an invitation shows the names others typed without links, bounded, and says who sent it", async () => {
    const to = recipient();
    const url = "https://acme.test/accept-invitation/inv-1";
    const variables = {
      url,
      organization_name: `Verify at https://evil.example/login or www.evil.example ${"x".repeat(80)}`,
      inviter_name: "IT\u202eDesk\r\nsupport@evil.example",
      role: "member",
    };
    await send(service, { to, template: Template.TEMPLATE_ORGANIZATION_INVITATION, variables });
    const mail = await smtp.waitFor(to);
    // 60 characters, then the ellipsis.
    const organization = `Verify at evil[.]example/login or www[.]evil[.]example ${"x".repeat(5)}…`;
    expect(mail.subject).toBe(`ITDesk support@evil[.]example invited you to join ${organization} on Acme Auth`);
    for (const body of [mail.text, mail.html]) {
      expect(body).not.toMatch(/evil\.example|https:\/\/evil|\u202e/);
      expect(body).toContain("This email was sent by Acme Auth");
    }
    expect(mail.text).toContain(`Join ${organization}`);
    // The only links are the invitation's and the footer's.
    expect(mail.html.match(/href="[^"]*"/g)).toEqual([`href="${url}"`, `href="${url}"`, 'href="https://app.acme.test"']);
  });

  it("writes the mail in the language asked, and in English for none or one it does not speak", async () => {
    const url = "https://acme.test/api/auth/reset-password/tok?callbackURL=%2F";
    const subjects: Record<string, string> = {};
    for (const language of ["de", "fr", "es", "en", "it", undefined]) {
      const to = recipient();
      await send(service, { to, template: Template.TEMPLATE_PASSWORD_RESET, variables: { url, name: "Ada" }, ...(language ? { language } : {}) });
      const mail = await smtp.waitFor(to);
      expect(mail.text).toContain(url);
      subjects[language ?? "none"] = mail.subject;
      if (language === "de") expect(mail.html).toContain('<html lang="de">');
    }
    expect(subjects).toEqual({
      de: "Setzen Sie Ihr Passwort für Acme Auth zurück",
      fr: "Réinitialisez votre mot de passe Acme Auth",
      es: "Restablece tu contraseña de Acme Auth",
      en: "Reset your Acme Auth password",
      it: "Reset your Acme Auth password",
      none: "Reset your Acme Auth password",
    });
  });

  it("sends one message for a repeated idempotency key", async () => {
    const to = recipient();
    const request = { to, template: Template.TEMPLATE_PASSWORD_RESET, variables: { url: "https://acme.test/reset?token=once" }, idempotencyKey: `reset:${to}` };
    const [first, second] = await Promise.all([send(service, request), send(service, request)]);
    const third = await send(service, request);
    expect(second).toBe(first);
    expect(third).toBe(first);
    await expect.poll(() => smtp.mails.filter((m) => m.envelopeTo.includes(to)).length, { timeout: 5_000 }).toBe(1);
    // One outbox row, delivered: nothing is left that could be sent again.
    await expect.poll(async () => (await service.registry.store.list({ recipient: to, limit: 10 })).map((m) => m.status)).toEqual(["delivered"]);
    expect(smtp.mails.filter((m) => m.envelopeTo.includes(to))).toHaveLength(1);
  });

  it("answers VALIDATION_ERROR for a bad address, a missing template or a missing variable", async () => {
    const attempts: Array<[Parameters<typeof send>[1], string]> = [
      [{ to: "not-an-email", template: Template.TEMPLATE_PASSWORD_RESET, variables: { url: "https://acme.test/r" } }, "to must be an email address"],
      [{ to: recipient(), template: Template.TEMPLATE_UNSPECIFIED, variables: { url: "https://acme.test/r" } }, "template is required"],
      [{ to: recipient(), template: Template.TEMPLATE_PASSWORD_RESET }, "variables.url is required for password-reset"],
      [{ to: recipient(), template: Template.TEMPLATE_PASSWORD_RESET, variables: { url: "javascript:alert(1)" } }, "variables.url must be an http(s) URL"],
    ];
    for (const [request, message] of attempts) {
      await expect(send(service, request)).rejects.toMatchObject({ code: "VALIDATION_ERROR", message });
    }
  });

  it("answers NOT_FOUND to ListOutbox: the development outbox is off", async () => {
    await expect(call(service.client, service.client.listOutbox, { limit: 10 })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("logs neither links nor bodies", () => {
    const text = JSON.stringify(service.logs);
    expect(service.logs.some((l) => l.msg === "mail delivered")).toBe(true);
    expect(text).not.toContain("https://acme.test/");
    expect(text).not.toContain("482913");
    expect(text).not.toContain(SMTP_PASS);
  });
});

describe(`SMTP down, then up (${backendLabel()})`, () => {
  let db: TestDatabase;
  let smtp: TestSmtp | undefined;
  let service: RunningNotification | undefined;
  afterEach(async () => {
    await service?.stop();
    await smtp?.stop();
    await db?.drop();
  });

  it("keeps the message through the outage and delivers it once, after the server comes back", async () => {
    const [port] = await freePorts(1);
    db = await createTestDatabase("notification");
    service = await startNotification({ ...APP, ...FAST, NOTIFICATION_DATABASE_URL: db.url, SMTP_URL: smtpUrl(port!) });
    const running = service;
    const to = recipient();
    const id = await send(running, { to, template: Template.TEMPLATE_EMAIL_VERIFICATION, variables: { url: "https://acme.test/verify?token=outage" } });

    await expect.poll(async () => (await running.registry.store.findById(id))!.attempts, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
    const during = await running.registry.store.findById(id);
    expect(during).toMatchObject({ status: "pending", deliveredAt: null });
    expect(during!.lastError).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
    expect(running.logs.some((l) => l.msg === "mail delivery failed; will retry" && l.messageId === id)).toBe(true);
    expect(running.logs.some((l) => l.msg === "smtp server not reachable yet: mail waits in the outbox and is retried")).toBe(true);
    expect(JSON.stringify(running.logs)).not.toContain(SMTP_PASS);

    smtp = await startMailer(port);
    await expect.poll(() => smtp!.mails.length, { timeout: 5_000 }).toBe(1);
    expect(smtp.mails[0]!.envelopeTo).toEqual([to]);
    expect(smtp.mails[0]!.headers["message-id"]).toBe(`<${id}@acme.test>`);
    await expect.poll(async () => (await running.registry.store.findById(id))!.status, { timeout: 2_000 }).toBe("delivered");
    const delivered = (await running.registry.store.findById(id))!;
    expect(delivered.attempts).toBeGreaterThan(1);

    // Stopping waits for the pass in progress: any second send would have reached the server by now.
    await service.stop();
    service = undefined;
    expect(smtp.mails).toHaveLength(1);
  });
});

describe(`two replicas on one database (${backendLabel()})`, () => {
  let db: TestDatabase;
  let smtp: TestSmtp;
  let replicas: RunningNotification[] = [];
  beforeAll(async () => {
    db = await createTestDatabase("notification");
    smtp = await startMailer();
    const env = { ...APP, NOTIFICATION_POLL_INTERVAL_MS: "20", NOTIFICATION_DATABASE_URL: db.url, SMTP_URL: smtpUrl(smtp.port) };
    replicas = [await startNotification(env), await startNotification(env)];
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    await smtp?.stop();
    await db?.drop();
  });

  it("delivers each message exactly once", async () => {
    const ids = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send(replicas[i % 2]!, { to: recipient(), template: Template.TEMPLATE_SIGN_IN_CODE, variables: { code: String(100000 + i) } })),
    );
    await expect.poll(() => smtp.mails.length, { timeout: 10_000 }).toBe(30);
    // Stopping waits for each replica's pass in progress: a duplicate send would have arrived by now.
    const stopping = replicas;
    replicas = [];
    for (const replica of stopping) await replica.stop();
    expect(smtp.mails).toHaveLength(30);
    const messageIds = smtp.mails.map((m) => m.headers["message-id"]);
    expect(new Set(messageIds).size).toBe(30);
    expect(new Set(messageIds)).toEqual(new Set(ids.map((id) => `<${id}@acme.test>`)));
    // Both replicas took part.
    for (const replica of stopping) expect(replica.logs.some((l) => l.msg === "mail delivered")).toBe(true);
  });
});

describe(`development outbox (${backendLabel()})`, () => {
  let db: TestDatabase;
  let service: RunningNotification;
  beforeAll(async () => {
    db = await createTestDatabase("notification");
    service = await startNotification({ ...APP, NOTIFICATION_DATABASE_URL: db.url });
  });
  afterAll(async () => {
    await service?.stop();
    await db?.drop();
  });

  it("keeps the message, marks it delivered, and ListOutbox returns it with its links", async () => {
    const to = recipient();
    const url = "https://acme.test/api/auth/reset-password/tok123?callbackURL=%2Freset";
    const id = await send(service, { to, template: Template.TEMPLATE_PASSWORD_RESET, variables: { url, name: "Ada" } });
    await expect.poll(async () => (await service.registry.store.findById(id))!.status, { timeout: 2_000 }).toBe("delivered");

    const { messages } = await call(service.client, service.client.listOutbox, { to: to.toUpperCase(), limit: 0 });
    expect(messages).toHaveLength(1);
    const [message] = messages;
    expect(message).toMatchObject({ id, to, template: Template.TEMPLATE_PASSWORD_RESET, subject: "Reset your Acme Auth password", links: [url], attempts: 1 });
    expect(message!.text).toContain(url);
    expect(message!.html).toContain("Hi Ada,");
    expect(message!.createdAt).toBeInstanceOf(Date);
    expect(message!.deliveredAt).toBeInstanceOf(Date);
  });

  it("prints the links (and only to, subject and links) to the log", async () => {
    const to = recipient();
    const url = "https://acme.test/api/auth/verify-email?token=tok456";
    await send(service, { to, template: Template.TEMPLATE_EMAIL_VERIFICATION, variables: { url } });
    await expect.poll(() => service.logs.find((l) => l.msg === "mail (development outbox)" && l.to === to), { timeout: 2_000 }).toBeTruthy();
    const line = service.logs.find((l) => l.msg === "mail (development outbox)" && l.to === to)!;
    expect(line).toMatchObject({ level: "info", to, subject: "Verify your email address for Acme Auth", links: [url] });
    expect(Object.keys(line).sort()).toEqual(["level", "links", "msg", "service", "subject", "time", "to"]);
  });

  it("keeps a sign-in code out of the log", async () => {
    const to = recipient();
    await send(service, { to, template: Template.TEMPLATE_SIGN_IN_CODE, variables: { code: "913377" } });
    await expect.poll(() => service.logs.some((l) => l.msg === "mail (development outbox)" && l.to === to), { timeout: 2_000 }).toBe(true);
    expect(JSON.stringify(service.logs)).not.toContain("913377");
    const { messages } = await call(service.client, service.client.listOutbox, { to, limit: 5 });
    expect(messages[0]!.text).toContain("913377");
  });

  it("lists newest first, all recipients without a filter, up to the limit", async () => {
    const to = recipient();
    const first = await send(service, { to, template: Template.TEMPLATE_DELETE_ACCOUNT, variables: { url: "https://acme.test/delete?token=1" } });
    clock.advance(5);
    const second = await send(service, { to, template: Template.TEMPLATE_CHANGE_EMAIL, variables: { url: "https://acme.test/change?token=2" } });
    const mine = await call(service.client, service.client.listOutbox, { to, limit: 0 });
    expect(mine.messages.map((m) => m.id)).toEqual([second, first]);
    const one = await call(service.client, service.client.listOutbox, { limit: 1 });
    expect(one.messages.map((m) => m.id)).toEqual([second]);
    const all = await call(service.client, service.client.listOutbox, { limit: 0 });
    expect(all.messages.length).toBeGreaterThanOrEqual(5);
  });

  it("warns at boot that mail is not delivered", () => {
    expect(service.logs.some((l) => l.level === "warn" && String(l.msg).startsWith("SMTP_URL is not set"))).toBe(true);
  });
});
