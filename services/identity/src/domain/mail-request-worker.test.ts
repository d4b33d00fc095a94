import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "@auth-platform/runtime/log";
import { identityConfig } from "../config.js";
import { aUser, anAccount } from "../store/identity-store.contract.js";
import type { IdentityStore } from "../store/identity-store.js";
import { openIdentityStore } from "../store/mikro-identity-store.js";
import { MAX_ATTEMPTS, processDue } from "./mail-request-worker.js";
import { MAIL_REQUEST_DELAY_MS } from "./mail-requests.js";
import type { MailPort, MailTemplate } from "./ports.js";
import { requestPasswordReset } from "./password-reset.js";
import { tokenHash } from "./trusted-devices.js";
import { sendVerificationEmail } from "./verification.js";

interface Sent {
  to: string;
  template: MailTemplate;
  variables: Record<string, string>;
  language?: string;
}

let store: IdentityStore;
let clock: number;
let sent: Sent[];
let mailDown: boolean;
let wakes: number;
let wakeDelays: number[];
let logged: Array<{ level: string; message: string; fields?: Record<string, unknown> }>;

const log: Logger = {
  debug() {},
  info() {},
  warn: (message, fields) => void logged.push({ level: "warn", message, fields }),
  error: (message, fields) => void logged.push({ level: "error", message, fields }),
};
const mail: MailPort = {
  async send(to, template, variables, _idempotencyKey, language) {
    if (mailDown) throw new Error("notification unavailable");
    sent.push({ to, template, variables, language });
  },
};
const deps = () => ({
  config: identityConfig({ AUTH_SECRET: "worker-test-secret-0123456789-0123456789" }),
  store,
  mail,
  log,
  sessions: {
    createSession: async () => ({}) as never,
    revokeUserSessions: async () => {},
    forgetUser: async () => {},
    forgetDeletedUser: async () => {},
    usersMissingSnapshot: async () => [],
  },
  mailRequests: {
    wake: (afterMs: number) => {
      wakes++;
      wakeDelays.push(afterMs);
    },
  },
  now: () => new Date(clock),
});

/** One worker pass once every queued request is due. */
async function passWhenDue() {
  clock += MAIL_REQUEST_DELAY_MS;
  return processDue(deps());
}

beforeEach(async () => {
  store = await openIdentityStore(":memory:", { now: () => new Date(clock) });
  clock = Date.UTC(2031, 0, 1);
  sent = [];
  mailDown = false;
  wakes = 0;
  wakeDelays = [];
  logged = [];
});
afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
});

async function aKnownUser(overrides = {}) {
  const user = aUser(overrides);
  await store.createUserWithAccount(user, anAccount(user));
  return user;
}

describe("mail requests", () => {
  it("answer after one queued request, for a known and an unknown address alike; the worker mails the known one only", async () => {
    const user = await aKnownUser();
    await requestPasswordReset(deps(), { email: ` ${user.email.toUpperCase()} `, redirectTo: "/reset" });
    await requestPasswordReset(deps(), { email: "nobody@example.com" });
    await sendVerificationEmail(deps(), { email: user.email, callbackUrl: "/verified" });
    await sendVerificationEmail(deps(), { email: "nobody@example.com" });
    // Nothing looked up or mailed yet: four requests queued, due only once the answers are out.
    expect(sent).toEqual([]);
    expect(wakes).toBe(4);
    expect(wakeDelays).toEqual(Array(4).fill(MAIL_REQUEST_DELAY_MS));
    expect(await processDue(deps())).toBe(0);
    clock += MAIL_REQUEST_DELAY_MS;
    const queued = (await store.findDueMailRequests(new Date(clock), 10)).map((r) => `${r.kind} ${r.email}`);
    expect(queued.sort()).toEqual(
      [`email-verification ${user.email}`, "email-verification nobody@example.com", `password-reset ${user.email}`, "password-reset nobody@example.com"].sort(),
    );

    expect(await processDue(deps())).toBe(4);
    const byTemplate = (template: MailTemplate) => sent.filter((m) => m.template === template);
    expect(sent).toHaveLength(2);
    expect(byTemplate("password-reset")).toEqual([
      expect.objectContaining({ to: user.email, variables: expect.objectContaining({ url: expect.stringMatching(/\/reset-password\/[A-Za-z0-9]{24}\?callbackURL=%2Freset$/) }) }),
    ]);
    expect(byTemplate("email-verification")).toEqual([
      expect.objectContaining({ to: user.email, variables: expect.objectContaining({ url: expect.stringContaining("callbackURL=%2Fverified") }) }),
    ]);
    expect(await store.findDueMailRequests(new Date(clock + 3_600_000), 10)).toEqual([]);
  });

  it("mails in the language of the request that queued it, English for a request that named none", async () => {
    const user = await aKnownUser();
    await requestPasswordReset(deps(), { email: user.email, language: "es" });
    await sendVerificationEmail(deps(), { email: user.email, language: "fr" });
    await passWhenDue();
    expect(sent.map((m) => `${m.template} ${m.language}`).sort()).toEqual(["email-verification fr", "password-reset es"]);
    sent = [];
    await requestPasswordReset(deps(), { email: user.email });
    await passWhenDue();
    expect(sent.map((m) => `${m.template} ${m.language}`)).toEqual(["password-reset undefined"]);
  });

  it("mails no verification link to a verified address", async () => {
    const user = await aKnownUser({ emailVerified: true });
    await sendVerificationEmail(deps(), { email: user.email });
    await passWhenDue();
    expect(sent).toEqual([]);
  });

  it("keeps a request while the notification service fails, retrying with growing delays, then mails it", async () => {
    // The jitter drawn at its top: each delay is the nominal one (runtime/backoff.ts).
    vi.spyOn(Math, "random").mockReturnValue(1 - 1e-9);
    const user = await aKnownUser();
    await requestPasswordReset(deps(), { email: user.email });
    mailDown = true;
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      await passWhenDue();
      const [request] = await store.findDueMailRequests(new Date(clock + 3_600_000), 10);
      delays.push(request!.nextAttemptAt.getTime() - clock);
      clock = request!.nextAttemptAt.getTime();
    }
    expect(delays).toEqual([1_000, 2_000, 4_000]);
    expect(logged.filter((l) => l.level === "warn")).toHaveLength(3);
    expect(JSON.stringify(logged)).not.toContain(user.email);
    mailDown = false;
    await processDue(deps());
    expect(sent).toHaveLength(1);
  });

  it("abandons a request after MAX_ATTEMPTS failures, logging no address", async () => {
    await requestPasswordReset(deps(), { email: (await aKnownUser()).email });
    mailDown = true;
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await passWhenDue();
      clock += 3_600_000;
    }
    expect(await store.findDueMailRequests(new Date(clock), 10)).toEqual([]);
    expect(logged.at(-1)).toMatchObject({ level: "error", message: "mail request abandoned", fields: { kind: "password-reset", attempts: MAX_ATTEMPTS } });
  });

  it("lets one of two workers take a request (the lease)", async () => {
    const user = await aKnownUser();
    await requestPasswordReset(deps(), { email: user.email });
    await Promise.all([passWhenDue(), processDue(deps())]);
    expect(sent).toHaveLength(1);
  });

  it("voids the older reset tokens when a newer one is mailed", async () => {
    const user = await aKnownUser();
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      await requestPasswordReset(deps(), { email: user.email });
      await passWhenDue();
      tokens.push(new URL(sent.at(-1)!.variables.url!).pathname.split("/").pop()!);
    }
    expect(new Set(tokens).size).toBe(3);
    // The records name the tokens' hashes, never the tokens.
    expect(await store.findVerification(`reset-password:${tokens[2]}`)).toBeNull();
    expect(await store.findVerification(`reset-password:${tokenHash(tokens[0]!)}`)).toBeNull();
    expect(await store.findVerification(`reset-password:${tokenHash(tokens[1]!)}`)).toBeNull();
    expect(await store.findVerification(`reset-password:${tokenHash(tokens[2]!)}`)).toMatchObject({ value: user.id });
  });
});
