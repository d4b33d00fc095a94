/**
 * The one set-up of the gateway suites: `const platform = usePlatform({ smtp: true })` at the top of a file
 * (or of a describe) starts a test SMTP server when asked, then the whole platform (startPlatform) with
 * SMTP_URL pointing at it, before the tests of that scope, and stops both after them.
 *
 * Two things let a suite wait on an event instead of the real clock:
 * - mailSettled(): resolves once every mail request identity queued has been processed, every invitation
 *   mail the organization service queued has been handed to notification, and every message the outbox
 *   holds has been delivered, so "and no other mail was sent" can be checked at once;
 * - clock.advance(ms): moves the clock the in-process services read (Date) forward, so a token or a
 *   session ages without the test sleeping. Time keeps running from there; real time is restored after the
 *   scope's platform is stopped.
 */
import { afterAll, beforeAll, expect } from "vitest";
import type { IdentityStore } from "../services/identity/src/store/identity-store.js";
import { openIdentityStore } from "../services/identity/src/store/mikro-identity-store.js";
import { openNotificationStore } from "../services/notification/src/store/mikro-notification-store.js";
import type { NotificationStore } from "../services/notification/src/store/notification-store.js";
import { openOrganizationStore } from "../services/organization/src/store/mikro-organization-store.js";
import type { OrganizationStore } from "../services/organization/src/store/organization-store.js";
import { TestClient } from "./http.js";
import { type Platform, type PlatformOptions, startPlatform } from "./platform.js";
import { type SmtpOptions, startSmtp, type TestSmtp } from "./smtp.js";
import { testClock } from "./test-clock.js";

export interface UsePlatformOptions extends PlatformOptions {
  /** Start a test SMTP server and send the platform's mail to it (true, or the server's options). */
  smtp?: boolean | SmtpOptions;
}

export interface PlatformUnderTest extends Platform {
  /** The test SMTP server (only with `smtp`). */
  readonly smtp: TestSmtp;
  /** A new HTTP client (its own cookie jar) on the platform's base URL. */
  client(): TestClient;
  /** Follows an absolute link from a mail with a client's cookies. */
  follow(client: TestClient, link: string): ReturnType<TestClient["get"]>;
  /** Resolves once identity's mail request queue and organization's invitation mail queue are empty and the outbox holds nothing undelivered. */
  mailSettled(): Promise<void>;
  clock: { advance(ms: number): void };
}

const FAR_FUTURE = new Date(Date.UTC(9999, 0, 1));

export function usePlatform(options: UsePlatformOptions = {}): PlatformUnderTest {
  const { smtp: smtpOption, ...platformOptions } = options;
  let platform: Platform | undefined;
  let smtp: TestSmtp | undefined;
  let queues: { identity: IdentityStore; organization: OrganizationStore; notification: NotificationStore } | undefined;
  const clock = testClock();

  beforeAll(async () => {
    if (smtpOption) smtp = await startSmtp(smtpOption === true ? {} : smtpOption);
    platform = await startPlatform({ ...platformOptions, env: { ...(smtp ? { SMTP_URL: smtp.url } : {}), ...platformOptions.env } });
  });
  afterAll(async () => {
    await queues?.identity.close();
    await queues?.organization.close();
    await queues?.notification.close();
    await platform?.stop();
    await smtp?.stop();
    clock.restore();
  });

  const started = (): Platform => {
    if (!platform) throw new Error("usePlatform: the platform starts in beforeAll; use it inside a test or a hook");
    return platform;
  };
  const openQueues = async () => {
    queues ??= {
      identity: await openIdentityStore(started().env.IDENTITY_DATABASE_URL!),
      organization: await openOrganizationStore(started().env.ORGANIZATION_DATABASE_URL!),
      notification: await openNotificationStore(started().env.NOTIFICATION_DATABASE_URL!),
    };
    return queues;
  };

  return {
    get baseURL() {
      return started().baseURL;
    },
    get origin() {
      return started().origin;
    },
    get identityAddress() {
      return started().identityAddress;
    },
    get sessionAddress() {
      return started().sessionAddress;
    },
    get env() {
      return started().env;
    },
    get gateway() {
      return started().gateway;
    },
    get services() {
      return started().services;
    },
    grpcTls: (workload) => started().grpcTls(workload),
    stop: () => started().stop(),
    get smtp() {
      if (!smtp) throw new Error("usePlatform: no SMTP server (pass { smtp: true })");
      return smtp;
    },
    client: () => new TestClient(started().baseURL),
    follow: (client, link) => client.get(link.slice(started().baseURL.length)),
    async mailSettled() {
      const { identity, organization, notification } = await openQueues();
      await expect.poll(async () => (await identity.findDueMailRequests(FAR_FUTURE, 1)).length, { timeout: 10_000 }).toBe(0);
      await expect.poll(async () => (await organization.findDueInvitationMails(FAR_FUTURE, 1)).length, { timeout: 10_000 }).toBe(0);
      await expect.poll(async () => (await notification.list({ limit: 10_000 })).filter((m) => m.status === "pending").length, { timeout: 10_000 }).toBe(0);
    },
    clock: { advance: (ms) => clock.advance(ms) },
  };
}
