/**
 * Deleting a user against requests of the same user in flight: a sign-in that read the user before the
 * deletion must not end with a live session (and a kept copy of the user) once the deletion is done; a
 * provider account linked while its user was deleted must not lock that social account out of signing up again.
 */
import { describe, expect, it } from "vitest";
import { removeUser } from "../../services/identity/src/domain/delete-user.js";
import { tokenHash } from "../../services/identity/src/domain/trusted-devices.js";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import { backendLabel } from "../../testing/databases.js";
import { holdNext } from "../../testing/hold-next.js";
import type { OpenIdAccount } from "../../testing/openid-provider.js";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { uniqueEmail } from "../../testing/http.js";
import { accountHelpers } from "./accounts.js";
import { join, organizationOf, person } from "./organization-fixtures.js";

describe(`deletion races (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, follow, signUp, smtp } = accountHelpers(platform);

  it("a sign-in whose session is created after the deletion finished leaves no session and no copy of the user", async () => {
    const { c, email, password, user } = await signUp();
    expect((await c.post("/delete-user", { password })).status).toBe(200);
    const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");

    // Hold the sign-in between its password check and its session until the deletion is done.
    const held = holdNext(platform.services.identity.deps.sessions, "createSession");
    try {
      const other = client();
      const signIn = other.post("/sign-in/email", { email, password });
      await held.reached;
      expect((await follow(c, link)).status).toBe(302);
      held.release();
      const res = await signIn;
      expect(res.status).not.toBe(200);
      expect((await other.get("/get-session")).body).toBeNull();
    } finally {
      held.restore();
    }
    const store = platform.services.session.deps.store;
    expect(await store.listByUser(user.id)).toEqual([]);
    expect(await store.findUser(user.id)).toBeNull();
  });
});

describe(`deletion racing a membership being written (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });

  it("an invitation accepted while the user is deleted leaves no membership of the deleted user", async () => {
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    const organization = await organizationOf(ada);
    const invited = await ada.c.post("/organization/invite-member", { email: grace.email, role: "admin", organizationId: organization.id });
    expect(invited.status).toBe(200);

    const store = platform.services.organization.deps.store;
    const held = holdNext(store, "acceptInvitation");
    try {
      const accepting = grace.c.post("/organization/accept-invitation", { invitationId: invited.body.id });
      await held.reached;
      await removeUser(platform.services.identity.deps, grace.user.id);
      held.release();
      expect(await accepting).toMatchObject({ status: 404, body: { code: "USER_NOT_FOUND" } });
    } finally {
      held.restore();
    }
    expect(await store.countMemberships(grace.user.id)).toBe(0);
    const full = await ada.c.get(`/organization/get-full-organization?organizationId=${organization.id}`);
    expect(full.body.members.map((m: { userId: string }) => m.userId)).toEqual([ada.user.id]);
  });

  it("an organization created while its creator is deleted does not stay with the deleted user as owner", async () => {
    const ada = await person(platform, "Ada");
    const store = platform.services.organization.deps.store;
    const held = holdNext(store, "createOrganization");
    const slug = `deleted-creator-${Date.now().toString(36)}`;
    try {
      const creating = ada.c.post("/organization/create", { name: "Orphan", slug });
      await held.reached;
      await removeUser(platform.services.identity.deps, ada.user.id);
      held.release();
      expect((await creating).status).not.toBe(200);
    } finally {
      held.restore();
    }
    expect(await store.countMemberships(ada.user.id)).toBe(0);
    expect(await store.findOrganizationBySlug(slug)).toBeNull();
  });
});

describe(`what a deletion leaves behind (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, follow, signUp, smtp } = accountHelpers(platform);
  const tokenOf = (link: string) => new URL(link).searchParams.get("token") ?? link.split("/reset-password/")[1]!.split("?")[0]!;

  it("two deletion links followed at once delete once; no reset or deletion record of the user is kept", async () => {
    const { c, email, password, user } = await signUp();
    expect((await client().post("/forget-password", { email, redirectTo: "/reset" })).status).toBe(200);
    const reset = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
    expect((await c.post("/delete-user", { password })).status).toBe(200);
    const first = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
    expect((await c.post("/delete-user", { password })).status).toBe(200);
    const second = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback") && !m.text.includes(tokenOf(first))), "/delete-user/callback");

    const answers = await Promise.all([follow(c, first), follow(client(), second)]);
    for (const res of answers) {
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).not.toContain("internal_server_error");
    }
    const { store } = platform.services.identity.deps;
    expect(await store.findUserById(user.id)).toBeNull();
    for (const identifier of [`reset-password:${tokenHash(tokenOf(reset))}`, `delete-account-${tokenHash(tokenOf(second))}`, `delete-account-${tokenHash(tokenOf(first))}`]) {
      expect(await store.findVerification(identifier), identifier).toBeNull();
    }
  });
});

describe(`a deleted owner's organizations (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });

  it("a sole owner's organization passes to a member; one with no member left goes; the owner's pending invitations end", async () => {
    const ada = await person(platform, "Ada");
    const grace = await person(platform, "Grace");
    const shared = await organizationOf(ada);
    const alone = await organizationOf(ada);
    await join(ada, grace, shared.id, "member");
    const pending = await ada.c.post("/organization/invite-member", { email: uniqueEmail("later"), role: "member", organizationId: shared.id });
    expect(pending.status).toBe(200);

    await removeUser(platform.services.identity.deps, ada.user.id);
    const full = await grace.c.get(`/organization/get-full-organization?organizationId=${shared.id}`);
    expect(full.body.members.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([[grace.user.id, "owner"]]);
    expect(full.body.invitations.filter((i: { status: string }) => i.status === "pending")).toEqual([]);
    const store = platform.services.organization.deps.store;
    expect(await store.countMemberships(ada.user.id)).toBe(0);
    expect(await store.findOrganization(alone.id)).toBeNull();
  });
});

describe(`deletion racing a social sign-in (${backendLabel()})`, () => {
  const social = useSocialPlatform();

  async function googleSignIn(flow: BrowserFlow, account: OpenIdAccount) {
    social.idp.signInAs(account);
    const res = await postJson(flow, `${social.platform.baseURL}/sign-in/social`, { provider: "google", callbackURL: "/dashboard", errorCallbackURL: "/oops" });
    expect(res.status).toBe(200);
    return (await flow.follow(res.body.url)).url.href;
  }

  it("a provider account linked into a user being deleted does not keep that social account from registering again", async () => {
    const account = social.anAccount("deleted-while-linking");
    const local = social.browser();
    const signedUp = await postJson(local, `${social.platform.baseURL}/sign-up/email`, { email: account.email, password: "correct horse battery", name: "Local" });
    const user = signedUp.body.user as { id: string };
    const { identity } = social.platform.services;
    await identity.deps.store.updateUser(user.id, { emailVerified: true });

    // Hold the implicit link (existing verified user, provider vouches) until the user is deleted.
    const store = identity.deps.store;
    const held = holdNext(store, "createAccount");
    try {
      const racing = googleSignIn(social.browser(), account);
      await held.reached;
      await removeUser(identity.deps, user.id);
      held.release();
      expect(await racing).not.toBe(`${social.platform.origin}/dashboard`);
    } finally {
      held.restore();
    }

    // The same social account registers anew, with nothing of the deleted user.
    const flow = social.browser();
    expect(await googleSignIn(flow, account)).toBe(`${social.platform.origin}/dashboard`);
    const session = await (await flow.request(`${social.platform.baseURL}/get-session`)).json();
    expect(session.user.email).toBe(account.email);
    expect(session.user.id).not.toBe(user.id);
    expect(await store.listAccounts(user.id)).toEqual([]);
  });
});
