/**
 * Attacks on the mail the platform sends, end to end (gateway, services, real SMTP): user input that tries
 * to forge content or headers of a mail, request headers that try to move a mailed link to another host,
 * and secrets (reset tokens, mailed links) that must never reach a log line or outlive their use.
 */
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { openStore } from "@auth-platform/runtime/store";
import { UserEntity } from "../../services/identity/src/store/entities.js";
import { openNotificationStore } from "../../services/notification/src/store/mikro-notification-store.js";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { linkIn, type ReceivedMail } from "../../testing/smtp.js";
import { freePorts, startGateway } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";
import { uniqueSlug } from "./organization-fixtures.js";

const PASSWORD = "password-123";

/** A line of a text body that starts like `prefix`: what a reader takes for a paragraph of its own. */
const lineStarting = (mail: ReceivedMail, prefix: string) => mail.text.split(/\r\n|[\n\r\u2028\u2029]/).find((line) => line.trimStart().startsWith(prefix));

/** A POST through node:http, so Host and the forwarding headers are sent exactly as given. */
function rawPost(origin: string, path: string, body: unknown, headers: Record<string, string>): Promise<number> {
  const { hostname, port } = new URL(origin);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, path, method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe(`user input in mail (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  /** A signed-up user named `name`; the client holds the session. */
  async function signedUp(name: string) {
    const c = platform.client();
    expect((await c.post("/sign-up/email", { name, email: uniqueEmail("named"), password: PASSWORD })).status).toBe(200);
    return c;
  }

  it("a name with line breaks cannot lay out a forged link line in the text body", async () => {
    const email = uniqueEmail("forged-lines");
    const name = "Ada,\r\n\r\nReset password: https://evil.example/reset\r\n\r\nThe link below has expired";
    expect((await platform.client().post("/sign-up/email", { name, email, password: PASSWORD })).status).toBe(200);
    const verification = await platform.smtp.waitFor(email, (m) => m.text.includes("/verify-email"));
    await platform.client().post("/forget-password", { email, redirectTo: "/reset" });
    const reset = await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/"));
    for (const mail of [verification, reset]) {
      expect(lineStarting(mail, "Reset password: https://evil.example")).toBeUndefined();
      // The name stays, on the greeting's line.
      expect(lineStarting(mail, "Hi Ada,")).toContain("Reset password: https://evil.example/reset The link below has expired,");
    }
    expect(lineStarting(reset, "Reset password:")).toBe(`Reset password: ${linkIn(reset, "/reset-password/")}`);
  });

  it("an organization or inviter name with line breaks forges no paragraph of an invitation", async () => {
    const owner = await signedUp("Owner\n\nAccept invitation: https://evil.example/join\n");
    const res = await owner.post("/organization/create", { name: "Acme\u2028\u2028Your account is locked: https://evil.example/unlock", slug: uniqueSlug() });
    expect(res.status).toBe(200);
    const invitee = uniqueEmail("invitee");
    expect((await owner.post("/organization/invite-member", { email: invitee, role: "member", organizationId: res.body.id })).status).toBe(200);
    const mail = await platform.smtp.waitFor(invitee, (m) => m.text.includes("/accept-invitation/"));
    expect(lineStarting(mail, "Accept invitation: https://evil.example")).toBeUndefined();
    expect(lineStarting(mail, "Your account is locked")).toBeUndefined();
    expect(mail.subject).not.toMatch(/[\r\n\u2028]/);
  });

  it("HTML and header syntax in names arrives as text: no markup, no extra header or recipient", async () => {
    const owner = await signedUp(`<a href="https://evil.example">Click</a><img src=x onerror=alert(1)>\r\nBcc: bcc@evil.example`);
    const org = await owner.post("/organization/create", { name: `<b onmouseover=alert(1)>Acme</b>\r\nReply-To: x@evil.example`, slug: uniqueSlug() });
    const invitee = uniqueEmail("html");
    expect((await owner.post("/organization/invite-member", { email: invitee, role: "member", organizationId: org.body.id })).status).toBe(200);
    const mail = await platform.smtp.waitFor(invitee, (m) => m.text.includes("/accept-invitation/"));
    expect(mail.html).not.toMatch(/<a href="https:\/\/evil|<img|<b on/i);
    // The markup arrives escaped, as text; the address in it is neutralised as every name's is (no scheme, dots broken).
    expect(mail.html).toContain("&lt;a href=&quot;evil[.]example&quot;&gt;Click&lt;/a&gt;");
    expect(mail.headers).not.toHaveProperty("bcc");
    expect(mail.headers).not.toHaveProperty("reply-to");
    expect(mail.envelopeTo).toEqual([invitee]);
  });
});

describe(`the per-recipient limit (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });

  it("counts the subaddresses of one mailbox (local+tag@domain) as that mailbox", async () => {
    const mailbox = `flooded-${Date.now().toString(36)}`;
    // Each sign-up mails a verification link, with the name the attacker chose, to the same inbox.
    for (let i = 1; i <= 7; i++) {
      const res = await platform.client().post("/sign-up/email", { name: "Call +1 555 0100 now", email: `${mailbox}+${i}@example.com`, password: PASSWORD });
      expect(res.status).toBe(200);
    }
    await platform.mailSettled();
    expect(platform.smtp.mails.filter((m) => m.to.some((to) => to.startsWith(`${mailbox}+`)))).toHaveLength(5);
  });
});

describe(`mailed links and request headers (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });

  it("Host, X-Forwarded-Host, X-Forwarded-Proto and Forwarded never move a reset link or trust their host", async () => {
    const email = uniqueEmail("host");
    expect((await platform.client().post("/sign-up/email", { name: "Victim", email, password: PASSWORD })).status).toBe(200);
    const spoofed = { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", forwarded: "host=evil.example;proto=https" };
    for (const redirectTo of ["https://evil.example/steal", "//evil.example/steal", "/\\evil.example/steal"]) {
      expect(await rawPost(platform.origin, "/api/auth/forget-password", { email, redirectTo }, spoofed)).toBe(403);
    }
    expect(await rawPost(platform.origin, "/api/auth/forget-password", { email, redirectTo: "/reset" }, spoofed)).toBe(200);
    const mail = await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/"));
    const link = linkIn(mail, "/reset-password/");
    expect(link.startsWith(`${platform.baseURL}/reset-password/`)).toBe(true);
    expect(mail.text + mail.html).not.toContain("evil.example");
    const landing = await platform.follow(new TestClient(platform.baseURL), link);
    expect(landing.headers.get("location")).toMatch(/^\/reset\?token=/);
  });

  it("a gateway without AUTH_BASE_URL trusts a spoofed Host for the request only: the token still never reaches it", async () => {
    const [port] = await freePorts(1);
    const unconfigured = await startGateway({ ...platform.env, AUTH_BASE_URL: "", PORT: String(port) });
    try {
      const email = uniqueEmail("no-base");
      expect((await platform.client().post("/sign-up/email", { name: "Victim", email, password: PASSWORD })).status).toBe(200);
      // The request's own origin is trusted when none is configured, so the spoofed one is accepted here.
      expect(await rawPost(unconfigured.origin, "/api/auth/forget-password", { email, redirectTo: "http://evil.example/steal" }, { host: "evil.example" })).toBe(200);
      const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
      // The link is built by identity from its configuration, never from the request.
      expect(link.startsWith(`${platform.baseURL}/reset-password/`)).toBe(true);
      const path = link.slice(platform.baseURL.length);
      // Followed by the victim, on either gateway, the landing checks the callback again and refuses it.
      for (const base of [platform.baseURL, `${unconfigured.origin}/api/auth`]) {
        const res = await new TestClient(base).get(path);
        expect({ status: res.status, location: res.headers.get("location") }).toEqual({ status: 403, location: null });
      }
    } finally {
      await unconfigured.close();
    }
  });
});

describe(`no reset token in the gateway's log (${backendLabel()})`, () => {
  const logs: Array<Record<string, unknown>> = [];
  const platform = usePlatform({ logs: (entry) => logs.push(entry) });

  it("a failing reset landing logs the route, not the path that holds the token", async () => {
    // Renamed behind identity's back: the landing's token check fails with an internal error.
    const store = await openStore({ url: platform.env.IDENTITY_DATABASE_URL!, entities: [UserEntity], migrations: [] });
    await store.em().getConnection().execute(`alter table "verification" rename to "verification_gone"`);
    await store.close();
    const token = "tokenZ1x9Qw7LmN3bV5cR8tY2uK4";
    const res = await new TestClient(platform.baseURL).get(`/reset-password/${token}?callbackURL=/reset`);
    expect(res.status).toBe(500);
    const gateway = logs.filter((entry) => entry.service === "gateway");
    expect(gateway).toContainEqual(expect.objectContaining({ msg: "internal error", path: "/reset-password/:token" }));
    expect(JSON.stringify(logs)).not.toContain(token);
  });
});

describe(`production without SMTP_URL (${backendLabel()})`, () => {
  const logs: Array<Record<string, unknown>> = [];
  const platform = usePlatform({ env: { NODE_ENV: "production", LOG_LEVEL: "info" }, logs: (entry) => logs.push(entry) });

  it("neither logs a mailed link nor keeps the bodies that hold it", async () => {
    const email = uniqueEmail("prod");
    expect((await platform.client().post("/sign-up/email", { name: "P", email, password: PASSWORD })).status).toBe(200);
    expect((await platform.client().post("/forget-password", { email })).status).toBe(200);
    const outbox = await openNotificationStore(platform.env.NOTIFICATION_DATABASE_URL!);
    try {
      const mine = async () => (await outbox.list({ recipient: email, limit: 10 })).filter((m) => m.status !== "pending");
      await expect.poll(async () => (await mine()).length, { timeout: 10_000 }).toBe(2);
      for (const message of await mine()) expect(message).toMatchObject({ text: "", html: "", links: [] });
    } finally {
      await outbox.close();
    }
    const text = JSON.stringify(logs);
    expect(text).not.toContain("/verify-email?token=");
    expect(text).not.toContain("/reset-password/");
  });
});
