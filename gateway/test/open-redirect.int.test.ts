/**
 * Open redirects, end to end: an attacker asks for a reset of a victim's password with a callback that a
 * naive check lets through. Every bypass of the corpus is refused at the door (403 INVALID_REDIRECTURL,
 * INVALID_CALLBACKURL on the landing routes); every accepted one, once mailed and followed, lands on the
 * app origin with the token, never on evil.example. Mail is read from the development outbox.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { type Platform, startPlatform } from "../../testing/platform.js";
import { redirectCorpus } from "./redirect-corpus.js";

const PASSWORD = "password-123";
const INVALID = {
  redirectTo: { code: "INVALID_REDIRECTURL", message: "Invalid redirectURL" },
  callbackURL: { code: "INVALID_CALLBACKURL", message: "Invalid callbackURL" },
};

/** The refusal of a bypass: 403 with the field's code, or 400 when it holds a NUL (refused before any check). */
function refusal(field: keyof typeof INVALID, value: string) {
  if (value.includes("\u0000")) return { status: 400, body: { code: "VALIDATION_ERROR", message: `Invalid ${field}: must not contain NUL characters` } };
  return { status: 403, body: INVALID[field] };
}

interface OutboxEntry {
  template: string;
  links: string[];
}

/** One platform per describe block, with AUTH_APP_URL = `appUrl` when given. */
function usePlatform(appUrl?: string) {
  const state = {} as { platform: Platform; http: TestClient; appOrigin: string };
  beforeAll(async () => {
    state.platform = await startPlatform(appUrl ? { env: { AUTH_APP_URL: appUrl } } : {});
    state.http = new TestClient(state.platform.baseURL);
    state.appOrigin = appUrl ? new URL(appUrl).origin : state.platform.origin;
  });
  afterAll(async () => {
    await state.platform?.stop();
  });
  return state;
}

async function aUser(http: TestClient): Promise<string> {
  const email = uniqueEmail("redirect");
  expect((await http.post("/sign-up/email", { name: "Victim", email, password: PASSWORD })).status).toBe(200);
  return email;
}

/** The reset link mailed to `email`, once the outbox holds it. */
async function resetLink(http: TestClient, email: string): Promise<string> {
  const path = `/dev/outbox?to=${encodeURIComponent(email)}`;
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const messages = (await http.get<{ messages: OutboxEntry[] }>(path)).body.messages ?? [];
        link = messages.flatMap((m) => m.links).find((l) => l.includes("/reset-password/"));
        return link !== undefined;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  return link!;
}

/** Follows a mailed link like a browser (no redirect following) and gives the absolute target of its Location. */
async function landingOf(link: string): Promise<{ status: number; location: string; target: URL }> {
  const res = await fetch(link, { redirect: "manual" });
  const location = res.headers.get("location") ?? "";
  return { status: res.status, location, target: new URL(location, link) };
}

function describeCorpus(label: string, appUrl?: string) {
  describe(`${label} (${backendLabel()})`, () => {
    const running = usePlatform(appUrl);

    it("refuses every bypass as a reset redirectTo with 403 INVALID_REDIRECTURL, and mails nothing", async () => {
      const { http, appOrigin } = running;
      const email = await aUser(http);
      for (const redirectTo of redirectCorpus(appOrigin).refused) {
        const res = await http.post("/request-password-reset", { email, redirectTo });
        expect(res, JSON.stringify(redirectTo)).toMatchObject(refusal("redirectTo", redirectTo));
        const legacy = await http.post("/forget-password", { email, redirectTo });
        expect(legacy, JSON.stringify(redirectTo)).toMatchObject(refusal("redirectTo", redirectTo));
      }
      const outbox = await http.get<{ messages: OutboxEntry[] }>(`/dev/outbox?to=${encodeURIComponent(email)}`);
      expect(outbox.body.messages.filter((m) => m.template === "password-reset")).toEqual([]);
    });

    it("refuses every bypass as the callbackURL of a hand-made landing link (reset, verify-email, delete-user)", async () => {
      const { platform, appOrigin } = running;
      const http = new TestClient(platform.baseURL);
      for (const callbackURL of redirectCorpus(appOrigin).refused) {
        const q = encodeURIComponent(callbackURL);
        for (const path of [
          `/reset-password/${"A".repeat(24)}?callbackURL=${q}`,
          `/verify-email?token=garbage&callbackURL=${q}`,
          `/delete-user/callback?token=garbage&callbackURL=${q}`,
        ]) {
          const res = await http.get(path);
          expect({ status: res.status, body: res.body, location: res.headers.get("location") }, `${path}`).toEqual({ ...refusal("callbackURL", callbackURL), location: null });
        }
      }
    });

    it("sends every accepted callback, once mailed and followed, to the app origin with the token", async () => {
      const { http, appOrigin } = running;
      // One user per value, signed up in turn (each costs a password hash); then every reset at once, since
      // each waits on the mail queue, not on the CPU.
      const corpus = redirectCorpus(appOrigin).staysOnApp;
      const emails: string[] = [];
      for (const _ of corpus) emails.push(await aUser(http));
      await Promise.all(
        corpus.map(async (redirectTo, i) => {
          const email = emails[i]!;
          const res = await http.post("/request-password-reset", { email, redirectTo });
          expect(res, JSON.stringify(redirectTo)).toMatchObject({ status: 200, body: { status: true } });
          const link = await resetLink(http, email);
          const landing = await landingOf(link);
          expect(landing.status, JSON.stringify(redirectTo)).toBe(302);
          expect(landing.location, JSON.stringify(redirectTo)).not.toMatch(/^(\/\/|\/\\|\\)/);
          expect(landing.target.origin, `${JSON.stringify(redirectTo)} -> ${landing.location}`).toBe(appOrigin);
          expect(landing.target.searchParams.get("token"), JSON.stringify(redirectTo)).toMatch(/^[A-Za-z0-9]{24}$/);
        }),
      );
    }, 120_000);

    it("keeps the failure redirects of verify-email, reset-password and delete-user/callback on the app origin", async () => {
      const { platform, appOrigin } = running;
      // No session: delete-user/callback answers unauthorized.
      const http = new TestClient(platform.baseURL);
      for (const callbackURL of ["/.//evil.example", "/%2e//evil.example", "/..//evil.example", "/%2e%2e//evil.example"]) {
        const q = encodeURIComponent(callbackURL);
        for (const [path, error] of [
          [`/reset-password/${"A".repeat(24)}?callbackURL=${q}`, "INVALID_TOKEN"],
          [`/verify-email?token=garbage&callbackURL=${q}`, "invalid_token"],
          [`/delete-user/callback?token=garbage&callbackURL=${q}`, "unauthorized"],
        ] as const) {
          const res = await http.get(path);
          const location = res.headers.get("location") ?? "";
          expect(res.status, path).toBe(302);
          expect(location, path).toBe(`${appOrigin}//evil.example?error=${error}`);
          expect(new URL(location, `${platform.baseURL}${path}`).origin, path).toBe(appOrigin);
        }
      }
    });
  });
}

describeCorpus("open redirect: the app on the gateway's origin");
// Nothing listens there: the test only reads where the Location points.
describeCorpus("open redirect: the app on its own origin (AUTH_APP_URL)", "http://app.localhost:5173/app");
