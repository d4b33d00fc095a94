/**
 * The Admin screen's Webhooks section in the browser: an admin registers an endpoint pointing at a real
 * receiver started by the test (its secret shown once), a user signs up, and the delivery log shows the
 * user.created delivery with the receiver's response code; the receiver verified the signature with the
 * `standardwebhooks` package. A resend from the log arrives again under the same webhook-id.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { useWebApp } from "../../testing/web-app.js";
import { poll, signInOnScreen, signUpByApi } from "./browser-helpers.js";

// The receiver listens on loopback: allowed for this suite only.
const web = useWebApp({ env: { NOTIFICATION_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true" } });

const received: Array<{ id: string; verified: { type: string; data: { user: { email: string } } } | undefined }> = [];
let secret = "";
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    let verified: (typeof received)[number]["verified"];
    try {
      verified = new Webhook(secret).verify(Buffer.concat(chunks).toString("utf8"), req.headers as Record<string, string>) as typeof verified;
    } catch {
      verified = undefined;
    }
    received.push({ id: String(req.headers["webhook-id"]), verified });
    res.writeHead(202).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe("admin webhooks", () => {
  it("registers an endpoint, shows its secret once, and logs a signed delivery of a sign-up, which it resends", async () => {
    const adminEmail = uniqueEmail("web-hooks-admin");
    await signUpByApi(web.origin, { name: "Hook Admin", email: adminEmail, password: "password-123" });
    const admin = await web.platform.services.identity.deps.store.findUserByEmail(adminEmail);
    await web.platform.services.identity.deps.store.updateUser(admin!.id, { role: "admin" });
    const page = await web.page();
    await signInOnScreen(page, adminEmail, "password-123");

    await page.goto("/admin/webhooks");
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    // A URL that is not http(s): the service's refusal (INVALID_WEBHOOK_URL) above the form.
    await page.getByLabel("Endpoint URL").fill("ftp://hooks.example.com/in");
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByRole("alert").filter({ hasText: "the URL must be http: or https:" }).waitFor();

    await page.getByLabel("Endpoint URL").fill(receiverUrl);
    await page.getByRole("button", { name: "Register" }).click();
    const shown = page.getByTestId("webhook-secret");
    await shown.waitFor();
    secret = (await shown.textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("heading", { name: receiverUrl }).waitFor();
    // Shown once: not after a reload.
    await page.reload();
    await page.getByRole("heading", { name: receiverUrl }).waitFor();
    expect(await page.getByTestId("webhook-secret").count()).toBe(0);

    const email = uniqueEmail("web-hooked");
    await signUpByApi(web.origin, { name: "Hooked", email, password: "password-123" });
    await poll(() => received.filter((r) => r.verified?.data.user.email === email).length).toBe(1);

    const log = page.getByRole("table", { name: `Deliveries to ${receiverUrl}` });
    const row = log.getByRole("row").filter({ hasText: "user.created" });
    await poll(() => row.count()).toBe(1);
    await poll(async () => (await row.textContent()) ?? "").toContain("Delivered");
    expect(await row.textContent()).toContain("202");

    await row.getByRole("button", { name: "Resend" }).click();
    await poll(() => received.filter((r) => r.verified?.data.user.email === email).length).toBe(2);
    const ids = new Set(received.filter((r) => r.verified?.data.user.email === email).map((r) => r.id));
    expect(ids.size).toBe(1);
  });
});
