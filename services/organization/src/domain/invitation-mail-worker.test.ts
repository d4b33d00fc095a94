/**
 * The invitation mail outbox on the memory store and the test clock: an invite answers once its mail is
 * queued, whatever notification does; the worker hands it over, retries with backoff while notification
 * fails, never twice at once, gives up after MAX_ATTEMPTS, and drops the mail of an invitation that is no
 * longer pending as mailed.
 */
import { describe, expect, it } from "vitest";
import type { Logger } from "@auth-platform/runtime/log";
import { cancelInvitation, inviteMember } from "./invitations.js";
import { deliverDueInvitationMails, LEASE_MS, MAX_ATTEMPTS, RETRY } from "./invitation-mail-worker.js";
import { createOrganization } from "./organizations.js";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";

const FAR_FUTURE = new Date(Date.UTC(9999, 0, 1));

async function setUp(deps: TestRegistry) {
  const owner = aUser(deps, "Ada");
  const { organization } = await createOrganization(deps, { caller: owner.caller(), name: "Engines", slug: "engines", metadata: {} });
  const invite = (email = "grace@example.com", resend = false) => inviteMember(deps, owner.caller(), { email, role: "member", organizationId: organization.id, resend });
  return { owner, organization, invite };
}

const queued = (deps: TestRegistry) => deps.store.findDueInvitationMails(FAR_FUTURE, 100);

/** A logger that keeps what is logged at warn and error. */
function recordingLog() {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const log: Logger = {
    debug() {},
    info() {},
    warn: (message, fields) => void lines.push({ level: "warn", message, fields }),
    error: (message, fields) => void lines.push({ level: "error", message, fields }),
  };
  return { log, lines };
}

describe("invitation mail outbox", () => {
  it("an invite while notification is down succeeds with its mail queued; the mail goes once notification is back", async () => {
    const deps = testRegistry();
    const { invite } = await setUp(deps);
    deps.mailDown = true;
    const invitation = await invite();
    expect(await deps.store.findInvitation(invitation.id)).toMatchObject({ status: "pending" });
    expect(deps.wakes).toBe(1);

    expect(await deps.deliverMail()).toEqual([]);
    const [waiting] = await queued(deps);
    expect(waiting).toMatchObject({ invitationId: invitation.id, attempts: 1, leaseUntil: null });
    // The first retry comes after half to all of the base delay.
    const delay = waiting!.nextAttemptAt.getTime() - deps.now().getTime();
    expect(delay).toBeGreaterThanOrEqual(RETRY.baseMs / 2);
    expect(delay).toBeLessThanOrEqual(RETRY.baseMs);

    deps.mailDown = false;
    expect(await deps.deliverMail()).toEqual([]);
    deps.advance(RETRY.baseMs);
    expect(await deps.deliverMail()).toEqual([
      {
        to: "grace@example.com",
        key: `organization-invitation:${invitation.id}:${invitation.expiresAt.getTime()}`,
        variables: expect.objectContaining({ url: `https://app.example.com/accept-invitation/${invitation.id}`, inviter_name: "Ada" }),
      },
    ]);
    expect(await queued(deps)).toEqual([]);
  });

  it("backs off between attempts, and abandons the mail with an error log after MAX_ATTEMPTS", async () => {
    const { log, lines } = recordingLog();
    const deps = testRegistry();
    deps.log = log;
    const { invite } = await setUp(deps);
    deps.mailDown = true;
    const invitation = await invite();
    let previousDelay = 0;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await deliverDueInvitationMails(deps)).toBe(1);
      expect(deps.sendCalls).toBe(attempt);
      const [waiting] = await queued(deps);
      if (attempt === MAX_ATTEMPTS) {
        expect(waiting).toBeUndefined();
        break;
      }
      const delay = waiting!.nextAttemptAt.getTime() - deps.now().getTime();
      const nominal = Math.min(RETRY.maxMs, RETRY.baseMs * 2 ** (attempt - 1));
      expect(delay).toBeGreaterThanOrEqual(nominal / 2);
      expect(delay).toBeLessThanOrEqual(nominal);
      expect(nominal).toBeGreaterThanOrEqual(previousDelay);
      previousDelay = nominal;
      // Not due before its time.
      expect(await deliverDueInvitationMails(deps)).toBe(0);
      deps.advance(delay);
    }
    expect(lines.filter((l) => l.level === "warn")).toHaveLength(MAX_ATTEMPTS - 1);
    const abandoned = lines.filter((l) => l.level === "error");
    expect(abandoned).toEqual([{ level: "error", message: "invitation mail abandoned", fields: expect.objectContaining({ invitationId: invitation.id, attempts: MAX_ATTEMPTS }) }]);
    // The recipient's address is not logged.
    expect(JSON.stringify(lines)).not.toContain("grace@example.com");
    // The invitation itself stays: a resend mails it again.
    deps.mailDown = false;
    deps.advance(1000);
    await invite("grace@example.com", true);
    expect(await deps.deliverMail()).toHaveLength(1);
  });

  it("leases a mail to one worker: passes running at once hand it over once; a lease that ran out is taken over", async () => {
    const deps = testRegistry();
    const { invite } = await setUp(deps);
    await invite();
    await Promise.all([deliverDueInvitationMails(deps), deliverDueInvitationMails(deps), deliverDueInvitationMails(deps)]);
    expect(deps.sendCalls).toBe(1);

    // A worker that took the lease and died: nobody else sends until the lease runs out.
    await invite("alan@example.com");
    const [mail] = await queued(deps);
    expect(await deps.store.claimInvitationMail(mail!.id, 0, deps.now(), new Date(deps.now().getTime() + LEASE_MS))).toBe(true);
    expect(await deliverDueInvitationMails(deps)).toBe(0);
    deps.advance(LEASE_MS);
    expect(await deliverDueInvitationMails(deps)).toBe(1);
    expect(deps.sent.map((m) => m.to)).toEqual(["grace@example.com", "alan@example.com"]);
  });

  it("writes the mail in the inviter's language, kept with it until the worker hands it over", async () => {
    const deps = testRegistry();
    const { owner, organization } = await setUp(deps);
    await inviteMember(deps, owner.caller(), { email: "grace@example.com", role: "member", organizationId: organization.id, resend: false, language: "de" });
    await inviteMember(deps, owner.caller(), { email: "alan@example.com", role: "member", organizationId: organization.id, resend: false });
    expect((await queued(deps)).map((m) => m.language).sort()).toEqual(["de", null]);
    await deps.deliverMail();
    expect(deps.sent.map((m) => `${m.to} ${m.language}`).sort()).toEqual(["alan@example.com undefined", "grace@example.com de"]);
  });

  it("a mail handed over again after a lost answer carries the same key, so notification queues it once", async () => {
    const deps = testRegistry();
    const { invite } = await setUp(deps);
    await invite();
    // Notification took the mail, but the answer never came back.
    const send = deps.mail.sendInvitation;
    deps.mail.sendInvitation = async (...args) => {
      await send(...args);
      throw new Error("deadline exceeded");
    };
    await deps.deliverMail();
    deps.mail.sendInvitation = send;
    deps.advance(RETRY.baseMs);
    await deps.deliverMail();
    expect(deps.sendCalls).toBe(2);
    expect(deps.sent).toHaveLength(1);
    expect(await queued(deps)).toEqual([]);
  });

  it("a canceled invitation's pending mail is dropped unsent, and so is one superseded by a resend", async () => {
    const deps = testRegistry();
    const { owner, invite } = await setUp(deps);
    deps.mailDown = true;
    const canceled = await invite("grace@example.com");
    const renewed = await invite("alan@example.com");
    await deps.deliverMail();
    await cancelInvitation(deps, owner.caller(), canceled.id);
    deps.advance(1000);
    const resent = await invite("alan@example.com", true);
    expect(await queued(deps)).toHaveLength(3);

    deps.mailDown = false;
    deps.advance(RETRY.baseMs);
    const calls = deps.sendCalls;
    expect(await deps.deliverMail()).toEqual([expect.objectContaining({ to: "alan@example.com", key: `organization-invitation:${renewed.id}:${resent.expiresAt.getTime()}` })]);
    expect(deps.sendCalls).toBe(calls + 1);
    expect(await queued(deps)).toEqual([]);
  });

  it("an invitation that expired before its mail could go is not mailed", async () => {
    const deps = testRegistry();
    const { invite } = await setUp(deps);
    deps.mailDown = true;
    await invite();
    await deps.deliverMail();
    deps.mailDown = false;
    deps.advance(deps.config.invitationExpiresInSeconds * 1000);
    expect(await deps.deliverMail()).toEqual([]);
    expect(await queued(deps)).toEqual([]);
  });
});
