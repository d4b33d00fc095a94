import { describe, expect, it } from "vitest";
import { ConfigError } from "@auth-platform/runtime/config";
import { notificationConfig } from "./config.js";

const SECRET = "test-secret-0123456789-0123456789-0123456789";

describe("notificationConfig", () => {
  it("has working defaults: port 50056, a SQLite file, the development outbox", () => {
    expect(notificationConfig({ AUTH_SECRET: SECRET })).toEqual({
      logLevel: "info",
      production: false,
      port: 50056,
      grpc: { tls: { kind: "insecure", explicit: false }, host: "0.0.0.0", healthPort: undefined },
      databaseUrl: "file:data/notification.db",
      smtpUrl: undefined,
      appName: "Auth Platform",
      mailFrom: '"Auth Platform" <no-reply@localhost>',
      mailDomain: "localhost",
      footerUrl: undefined,
      maxAttempts: 20,
      retryBaseMs: 5_000,
      retryMaxMs: 3_600_000,
      pollIntervalMs: 1_000,
      recipientLimit: { limit: 5, windowSeconds: 900 },
      webhooks: { retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000], timeoutMs: 10_000, allowPrivateAddresses: false },
      secret: SECRET,
    });
  });

  it("reads the webhook retry schedule in seconds and refuses an empty or bad one", () => {
    expect(notificationConfig({ AUTH_SECRET: SECRET, NOTIFICATION_WEBHOOK_RETRY_SCHEDULE: "1, 2,3" }).webhooks.retryScheduleMs).toEqual([1000, 2000, 3000]);
    expect(() => notificationConfig({ AUTH_SECRET: SECRET, NOTIFICATION_WEBHOOK_RETRY_SCHEDULE: "1,x" })).toThrow(/NOTIFICATION_WEBHOOK_RETRY_SCHEDULE/);
    expect(() => notificationConfig({ AUTH_SECRET: SECRET, NOTIFICATION_WEBHOOK_RETRY_SCHEDULE: "0" })).toThrow(/NOTIFICATION_WEBHOOK_RETRY_SCHEDULE/);
  });

  it("builds the sender from APP_NAME and takes the Message-ID domain from MAIL_FROM", () => {
    expect(notificationConfig({ AUTH_SECRET: SECRET, APP_NAME: "Acme" }).mailFrom).toBe('"Acme" <no-reply@localhost>');
    const custom = notificationConfig({ AUTH_SECRET: SECRET, MAIL_FROM: "Acme <hello@mail.acme.test>" });
    expect(custom).toMatchObject({ mailFrom: "Acme <hello@mail.acme.test>", mailDomain: "mail.acme.test" });
    expect(notificationConfig({ AUTH_SECRET: SECRET, MAIL_FROM: "bare@acme.test" }).mailDomain).toBe("acme.test");
  });

  it("points the footer at the web app, else at the gateway's origin", () => {
    expect(notificationConfig({ AUTH_SECRET: SECRET, AUTH_BASE_URL: "https://auth.acme.test/api/auth" }).footerUrl).toBe("https://auth.acme.test");
    expect(notificationConfig({ AUTH_SECRET: SECRET, AUTH_BASE_URL: "https://auth.acme.test/api/auth", AUTH_APP_URL: "https://app.acme.test" }).footerUrl).toBe(
      "https://app.acme.test",
    );
  });

  it("takes smtp:// and smtps:// URLs and treats an empty one as unset", () => {
    expect(notificationConfig({ AUTH_SECRET: SECRET, SMTP_URL: "smtps://u:p@smtp.acme.test:465" }).smtpUrl).toBe("smtps://u:p@smtp.acme.test:465");
    expect(notificationConfig({ AUTH_SECRET: SECRET, SMTP_URL: "" }).smtpUrl).toBeUndefined();
  });

  it("lists every bad variable in one error, never echoing the SMTP URL (it holds a password)", () => {
    let error: unknown;
    try {
      notificationConfig({ AUTH_SECRET: SECRET, SMTP_URL: "http://user:hunter2@smtp.acme.test", MAIL_FROM: "nobody", NOTIFICATION_MAX_ATTEMPTS: "0", NOTIFICATION_PORT: "x" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ["SMTP_URL", "MAIL_FROM", "NOTIFICATION_MAX_ATTEMPTS", "NOTIFICATION_PORT"]) expect(message).toContain(name);
    expect(message).not.toContain("hunter2");
  });

  it("never lets the backoff cap sit below its base", () => {
    expect(notificationConfig({ AUTH_SECRET: SECRET, NOTIFICATION_RETRY_BASE_MS: "500", NOTIFICATION_RETRY_MAX_MS: "100" }).retryMaxMs).toBe(500);
  });

  it("reads the per-recipient limit and refuses a negative limit or an empty window", () => {
    expect(notificationConfig({ AUTH_SECRET: SECRET, NOTIFICATION_RECIPIENT_LIMIT: "3", NOTIFICATION_RECIPIENT_WINDOW: "3600" }).recipientLimit).toEqual({
      limit: 3,
      windowSeconds: 3600,
    });
    expect(() => notificationConfig({ AUTH_SECRET: SECRET, NOTIFICATION_RECIPIENT_LIMIT: "-1" })).toThrow(/NOTIFICATION_RECIPIENT_LIMIT/);
    expect(() => notificationConfig({ AUTH_SECRET: SECRET, NOTIFICATION_RECIPIENT_WINDOW: "0" })).toThrow(/NOTIFICATION_RECIPIENT_WINDOW/);
  });
});
