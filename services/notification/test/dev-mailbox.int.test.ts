/**
 * The gateway's development mailbox route (gateway/src/routes/dev-mailbox.ts) against a real notification
 * service: real HTTP into express, real gRPC to the service.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Template } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { call } from "@auth-platform/proto/rpc-client";
import { createLogger } from "@auth-platform/runtime/log";
import { errorHandler } from "../../../gateway/src/http/errors.js";
import { devMailboxRoutes } from "../../../gateway/src/routes/dev-mailbox.js";
import { createTestDatabase, type TestDatabase } from "../../../testing/databases.js";
import { TestClient } from "../../../testing/http.js";
import { startNotification, type RunningNotification } from "./harness.js";

async function serve(service: RunningNotification): Promise<{ http: TestClient; server: Server }> {
  const app = express();
  app.use("/api/auth", devMailboxRoutes(service.client), errorHandler(createLogger("gateway", "error")));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { http: new TestClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth`), server };
}

describe("GET /dev/outbox", () => {
  let db: TestDatabase;
  let service: RunningNotification;
  let http: TestClient;
  let server: Server;
  beforeAll(async () => {
    db = await createTestDatabase("notification");
    service = await startNotification({ LOG_LEVEL: "error", APP_NAME: "Acme Auth", NOTIFICATION_DATABASE_URL: db.url });
    ({ http, server } = await serve(service));
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await service?.stop();
    await db?.drop();
  });

  it("lists one address's messages as JSON, newest first, with their links", async () => {
    const to = `dev-${Date.now().toString(36)}@example.com`;
    const url = "https://acme.test/api/auth/verify-email?token=t1";
    const { messageId } = await call(service.client, service.client.sendEmail, { to, template: Template.TEMPLATE_EMAIL_VERIFICATION, variables: { url }, idempotencyKey: "" });
    await new Promise((resolve) => setTimeout(resolve, 5)); // distinct creation times, for the order below
    await call(service.client, service.client.sendEmail, { to: "other@example.com", template: Template.TEMPLATE_SIGN_IN_CODE, variables: { code: "123456" }, idempotencyKey: "" });

    const res = await http.get(`/dev/outbox?to=${encodeURIComponent(to)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body.messages).toHaveLength(1);
    const [message] = res.body.messages;
    expect(message).toMatchObject({ id: messageId, to, subject: "Verify your email address for Acme Auth", template: "email-verification", links: [url] });
    expect(message.text).toContain(url);
    expect(message.html).toContain("<!doctype html>");
    expect(Date.parse(message.createdAt)).not.toBeNaN();
    expect(message.deliveredAt === null || !Number.isNaN(Date.parse(message.deliveredAt))).toBe(true);

    const everyone = await http.get("/dev/outbox");
    expect(everyone.body.messages.map((m: { template: string }) => m.template)).toEqual(["sign-in-code", "email-verification"]);
  });

  it("answers 400 naming the field for a bad limit", async () => {
    const res = await http.get("/dev/outbox?limit=0");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.message).toContain("limit");
  });
});

describe("GET /dev/outbox with SMTP configured", () => {
  it("answers 404 NOT_FOUND", async () => {
    const db = await createTestDatabase("notification");
    const service = await startNotification({ LOG_LEVEL: "error", NOTIFICATION_DATABASE_URL: db.url, SMTP_URL: "smtp://127.0.0.1:9" });
    const { http, server } = await serve(service);
    try {
      const res = await http.get("/dev/outbox");
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: "NOT_FOUND", message: "Not found" });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.stop();
      await db.drop();
    }
  });
});
