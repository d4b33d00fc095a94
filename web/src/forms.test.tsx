// @vitest-environment happy-dom
/**
 * Component tests of the forms and guards, in happy-dom with the API answered by a stub fetch: what each
 * form sends, its pending state, where an error appears, and where the guards send a visitor.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, RouterProvider } from "@tanstack/react-router";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAppRouter } from "./router";

interface Call {
  method: string;
  path: string;
  body: unknown;
}

type Answer = { status: number; body: unknown } | Promise<{ status: number; body: unknown }>;

/** A fetch that answers by path, records every call, and answers an unknown path 404. */
function stubApi(answers: Record<string, (call: Call) => Answer>) {
  const calls: Call[] = [];
  vi.stubGlobal("fetch", async (input: string, init?: RequestInit) => {
    const url = new URL(input, "http://app.test");
    const call = { method: init?.method ?? "GET", path: url.pathname.replace(/^\/api\/auth/, ""), body: init?.body ? JSON.parse(String(init.body)) : undefined };
    calls.push(call);
    const answer = await (answers[call.path]?.(call) ?? { status: 404, body: { code: "NOT_FOUND", message: "Not found" } });
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
  });
  return calls;
}

function renderApp(path: string) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const history = createMemoryHistory({ initialEntries: [path] });
  const router = createAppRouter(queryClient, history);
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { router, history, queryClient };
}

const user = { id: "u1", name: "Ada", email: "ada@example.com", emailVerified: true, image: null, createdAt: "", updatedAt: "", username: "ada", displayUsername: "Ada" };
const session = { id: "s1", token: "t1", userId: "u1", expiresAt: "", ipAddress: null, userAgent: null, createdAt: "", updatedAt: "" };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("guards", () => {
  it("sends a signed-out visitor of /account to sign-in, remembering where they were going", async () => {
    stubApi({ "/get-session": () => ({ status: 200, body: null }) });
    const { router } = renderApp("/account?tab=sessions");
    await waitFor(() => expect(router.state.location.pathname).toBe("/sign-in"));
    expect(router.state.location.search).toEqual({ redirect: "/account?tab=sessions" });
    await screen.findByRole("heading", { name: "Sign in" });
  });

  it("sends a signed-in visitor of sign-in on to where they were going, never to another site", async () => {
    stubApi({
      "/get-session": () => ({ status: 200, body: { session, user } }),
      "/list-sessions": () => ({ status: 200, body: [] }),
      "/list-accounts": () => ({ status: 200, body: [] }),
    });
    const { router } = renderApp("/sign-in?redirect=%2F%2Fevil.example");
    await waitFor(() => expect(router.state.location.pathname).toBe("/account"));
  });
});

describe("sign-in form", () => {
  it("signs in by username or by email, with remember me, and shows progress while it waits", async () => {
    let release: (answer: { status: number; body: unknown }) => void = () => undefined;
    let signedIn = false;
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: signedIn ? { session, user } : null }),
      "/sign-in/username": () => new Promise((resolve) => (release = resolve)),
      "/list-sessions": () => ({ status: 200, body: [] }),
      "/list-accounts": () => ({ status: 200, body: [] }),
    });
    const { router } = renderApp("/sign-in");
    fireEvent.change(await screen.findByLabelText("Email or username"), { target: { value: " Ada " } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "password-123" } });
    fireEvent.click(screen.getByLabelText("Remember me on this device"));
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

    const pending = await screen.findByRole("button", { name: "Signing in…" });
    expect(pending).toHaveProperty("disabled", true);
    expect(calls.at(-1)).toEqual({ method: "POST", path: "/sign-in/username", body: { username: "Ada", password: "password-123", rememberMe: false } });
    signedIn = true;
    await act(async () => release({ status: 200, body: { token: "t1", user } }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/account"));
  });

  it("uses the email path for an address and shows the API's message as an alert", async () => {
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: null }),
      "/sign-in/sso": () => ({ status: 400, body: { code: "PROVIDER_DOMAIN_HAS_NOT_BEEN_VERIFIED", message: "Provider domain has not been verified" } }),
      "/sign-in/email": () => ({ status: 401, body: { code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" } }),
    });
    renderApp("/sign-in");
    fireEvent.change(await screen.findByLabelText("Email or username"), { target: { value: "ada@example.com" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "nope-nope" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Invalid email or password");
    expect(calls.at(-1)).toMatchObject({ path: "/sign-in/email", body: { email: "ada@example.com", rememberMe: true } });
  });

  it("email first: an address its organization's provider signs in leaves for that provider, password or not", async () => {
    const assign = vi.spyOn(window.location, "assign").mockImplementation(() => undefined);
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: null }),
      "/sign-in/sso": () => ({ status: 200, body: { url: "https://idp.example.com/authorize?state=s", redirect: true } }),
    });
    renderApp("/sign-in?redirect=%2Forganizations");
    fireEvent.change(await screen.findByLabelText("Email or username"), { target: { value: "ada@corp.example" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://idp.example.com/authorize?state=s"));
    expect(calls.find((c) => c.path === "/sign-in/sso")).toMatchObject({
      body: { email: "ada@corp.example", callbackURL: "/organizations", errorCallbackURL: "/sign-in?redirect=%2Forganizations" },
    });
    expect(calls.some((c) => c.path === "/sign-in/email")).toBe(false);
    assign.mockRestore();
  });

  it("email first: an address no provider signs in asks for the password when none was typed, and a username never asks the provider", async () => {
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: null }),
      "/sign-in/sso": () => ({ status: 404, body: { code: "PROVIDER_NOT_FOUND", message: "Provider not found" } }),
      "/sign-in/username": () => ({ status: 401, body: { code: "INVALID_USERNAME_OR_PASSWORD", message: "Invalid username or password" } }),
    });
    renderApp("/sign-in");
    fireEvent.change(await screen.findByLabelText("Email or username"), { target: { value: "ada@example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Enter your password.");
    expect(calls.some((c) => c.path === "/sign-in/email")).toBe(false);
    fireEvent.change(screen.getByLabelText("Email or username"), { target: { value: "ada" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "nope-nope" } });
    const before = calls.filter((c) => c.path === "/sign-in/sso").length;
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Invalid username or password");
    expect(calls.filter((c) => c.path === "/sign-in/sso").length).toBe(before);
  });
});

describe("sign-up form", () => {
  it("shows the password rules as one types, and puts a taken username's message next to the username field", async () => {
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: null }),
      "/sign-up/email": () => ({ status: 422, body: { code: "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER", message: "username is already taken. please try another." } }),
    });
    renderApp("/sign-up");
    const password = await screen.findByLabelText("Password");
    fireEvent.change(password, { target: { value: "abc" } });
    expect(screen.getByText(/At least 8 characters/).closest("li")?.className).toBe("unmet");
    fireEvent.change(password, { target: { value: "abcdefgh" } });
    expect(screen.getByText(/At least 8 characters/).closest("li")?.className).toBe("met");

    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Ada" } });
    fireEvent.change(screen.getByLabelText("Email"), { target: { value: "ada@example.com" } });
    fireEvent.change(screen.getByLabelText("Username (optional)"), { target: { value: "ada" } });
    fireEvent.click(screen.getByRole("button", { name: "Create account" }));
    const username = screen.getByLabelText("Username (optional)");
    await waitFor(() => expect(username.getAttribute("aria-invalid")).toBe("true"));
    const described = username
      .getAttribute("aria-describedby")!
      .split(" ")
      .map((id) => document.getElementById(id)?.textContent);
    expect(described).toContain("username is already taken. please try another.");
    expect(calls.at(-1)).toMatchObject({
      path: "/sign-up/email",
      body: { name: "Ada", email: "ada@example.com", username: "ada", password: "abcdefgh", callbackURL: "/verify-email" },
    });
  });

  it("sends nothing while the password breaks a rule", async () => {
    const calls = stubApi({ "/get-session": () => ({ status: 200, body: null }) });
    renderApp("/sign-up");
    fireEvent.change(await screen.findByLabelText("Name"), { target: { value: "Ada" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "short" } });
    fireEvent.click(screen.getByRole("button", { name: "Create account" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Choose a password that meets the rules below.");
    expect(calls.filter((c) => c.path === "/sign-up/email")).toEqual([]);
  });
});

describe("create-organization form", () => {
  it("says a slug is taken when the name just used is typed again at once (no stale 'available' answer)", async () => {
    const taken = new Set<string>();
    const org = { id: "o1", name: "Acme", slug: "acme", logo: null, createdAt: "", members: [], invitations: [], teams: [] };
    stubApi({
      "/get-session": () => ({ status: 200, body: { session, user } }),
      "/organization/list": () => ({ status: 200, body: taken.size ? [org] : [] }),
      "/organization/get-full-organization": () => ({ status: 200, body: taken.size ? org : null }),
      "/organization/check-slug": (call) =>
        taken.has((call.body as { slug: string }).slug)
          ? { status: 400, body: { code: "ORGANIZATION_ALREADY_EXISTS", message: "Organization already exists" } }
          : { status: 200, body: { status: true } },
      "/organization/create": (call) => {
        taken.add((call.body as { slug: string }).slug);
        return { status: 200, body: org };
      },
    });
    renderApp("/organizations");
    const name = await screen.findByLabelText("Organization name");
    fireEvent.change(name, { target: { value: "Acme" } });
    await screen.findByText("“acme” is available.");
    fireEvent.click(screen.getByRole("button", { name: "Create organization" }));
    await screen.findByText("Acme has been created and is now your active organization.");
    fireEvent.change(name, { target: { value: "Acme" } });
    const slug = screen.getByLabelText("Slug");
    await waitFor(() => expect(slug.getAttribute("aria-invalid")).toBe("true"));
    expect(screen.queryByText("“acme” is available.")).toBeNull();
  });
});

describe("identity provider section", () => {
  it("registers a SAML provider from pasted metadata (off, its entity ID as issuer) and shows the values to paste into the IdP", async () => {
    const access = {
      role: "owner",
      canUpdateOrganization: true,
      canDeleteOrganization: true,
      canInvite: true,
      canCancelInvitations: true,
      assignableRoles: ["member", "admin", "owner"],
      updatableMemberIds: [],
      removableMemberIds: [],
      ownerRole: "owner",
      canManageTeams: true,
      roleActions: [],
    };
    const org = { id: "o1", name: "Acme", slug: "acme", logo: null, createdAt: "", members: [], invitations: [], teams: [], access };
    const base = "https://auth.example.com/api/auth";
    const saml = {
      providerId: "acme-saml",
      type: "saml",
      issuer: "https://idp.example.com/entity",
      domain: "acme.example",
      organizationId: "o1",
      domainVerified: false,
      redirectURI: "",
      enabled: false,
      defaultRole: "member",
      samlConfig: {
        idpEntityId: "https://idp.example.com/entity",
        entryPoint: "https://idp.example.com/sso",
        spEntityId: `${base}/sso/saml2/sp/metadata?providerId=acme-saml`,
        acsUrl: `${base}/sso/saml2/sp/acs/acme-saml`,
        spMetadataUrl: `${base}/sso/saml2/sp/metadata?providerId=acme-saml`,
      },
    };
    let providers: unknown[] = [];
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: { session: { ...session, activeOrganizationId: "o1" }, user } }),
      "/organization/list": () => ({ status: 200, body: [org] }),
      "/organization/get-full-organization": () => ({ status: 200, body: org }),
      "/organization/list-roles": () => ({ status: 200, body: [] }),
      "/organization/scim/list-tokens": () => ({ status: 200, body: [] }),
      "/sso/providers": () => ({ status: 200, body: { providers } }),
      "/sso/register": () => {
        providers = [saml];
        return { status: 200, body: saml };
      },
    });
    renderApp("/organizations");
    await screen.findByRole("heading", { name: "Identity provider" }, { timeout: 5000 });
    const section = screen.getByRole("region", { name: "Identity provider" });
    const inside = within(section);
    await inside.findByText("No identity provider yet.");
    fireEvent.click(inside.getByLabelText("SAML 2.0"));
    fireEvent.change(inside.getByLabelText("Provider ID"), { target: { value: "acme-saml" } });
    fireEvent.change(inside.getByLabelText("Email domain"), { target: { value: "acme.example" } });
    const xml = `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.com/entity"/>`;
    fireEvent.change(inside.getByLabelText("IdP metadata XML"), { target: { value: xml } });
    fireEvent.click(inside.getByRole("button", { name: "Register provider" }));
    await inside.findByText(/acme-saml is registered, with sign-in off/);
    expect(calls.find((c) => c.path === "/sso/register")?.body).toEqual({
      providerId: "acme-saml",
      domain: "acme.example",
      organizationId: "o1",
      defaultRole: "member",
      enabled: false,
      issuer: "https://idp.example.com/entity",
      samlConfig: { idpMetadata: { metadata: xml } },
    });
    const list = await inside.findByRole("list", { name: "Identity providers" });
    await waitFor(() => expect(list.textContent).toContain(saml.samlConfig.acsUrl));
    expect(list.textContent).toContain(saml.samlConfig.spEntityId);
    expect(within(list).getByRole("button", { name: "Copy ACS URL (single sign-on URL)" })).toBeTruthy();
    expect(within(list).getByRole("switch", { name: "Sign-in through acme-saml is on" })).toHaveProperty("checked", false);
  });
});

describe("social sign-in and linking", () => {
  it("shows a button per configured provider on sign-in, and leaves for the provider's page", async () => {
    const assign = vi.spyOn(window.location, "assign").mockImplementation(() => undefined);
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: null }),
      // A generic provider is shown by the name its operator gave it.
      "/social-providers": () => ({ status: 200, body: { providers: ["github", "google", "corp-sso"], names: { "corp-sso": "Corp SSO" } } }),
      "/sign-in/social": () => ({ status: 200, body: { url: "https://github.example/login/oauth/authorize?state=s", redirect: true } }),
    });
    renderApp("/sign-in?redirect=%2Forganizations");
    const list = await screen.findByRole("list", { name: "Sign in with another service" });
    expect([...list.querySelectorAll("button")].map((b) => b.textContent)).toEqual(["Continue with GitHub", "Continue with Google", "Continue with Corp SSO"]);
    fireEvent.click(screen.getByRole("button", { name: "Continue with GitHub" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://github.example/login/oauth/authorize?state=s"));
    // A failure comes back to this screen, which says why (a banned user: BANNED_USER).
    expect(calls.find((c) => c.path === "/sign-in/social")).toEqual({
      method: "POST",
      path: "/sign-in/social",
      body: { provider: "github", callbackURL: "/organizations", errorCallbackURL: "/sign-in?redirect=%2Forganizations" },
    });
    assign.mockRestore();
  });

  it("shows no social buttons when the platform has none configured or no such route (404)", async () => {
    for (const answer of [
      { status: 200, body: { providers: [] } },
      { status: 404, body: { code: "NOT_FOUND", message: "Not found" } },
    ]) {
      const calls = stubApi({ "/get-session": () => ({ status: 200, body: null }), "/social-providers": () => answer });
      const { queryClient } = renderApp("/sign-in");
      await screen.findByRole("heading", { name: "Sign in" });
      await waitFor(() => expect(calls.some((c) => c.path === "/social-providers")).toBe(true));
      // The answer is in (none to offer); waitFor lets the screen render it before it returns.
      await waitFor(() => expect(queryClient.getQueryState(["social-providers"])).toMatchObject({ status: "success", data: { ids: [], names: {} } }));
      expect(screen.queryByRole("list", { name: "Sign in with another service" })).toBeNull();
      expect(screen.queryByRole("alert")).toBeNull();
      cleanup();
    }
  });

  it("offers to link the configured providers not linked yet, and unlinks one", async () => {
    const assign = vi.spyOn(window.location, "assign").mockImplementation(() => undefined);
    const account = (providerId: string) => ({ id: `a-${providerId}`, providerId, accountId: `x-${providerId}`, createdAt: "2026-01-01T00:00:00Z", updatedAt: "", scopes: [] });
    let linked = [account("credential"), account("github")];
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: { session, user } }),
      "/list-sessions": () => ({ status: 200, body: [session] }),
      "/list-accounts": () => ({ status: 200, body: linked }),
      "/social-providers": () => ({ status: 200, body: { providers: ["github", "google"] } }),
      "/link-social": () => ({ status: 200, body: { url: "https://accounts.google.example/o/oauth2/auth?state=s", redirect: true } }),
      "/unlink-account": (call) => {
        linked = linked.filter((a) => a.providerId !== (call.body as { providerId: string }).providerId);
        return { status: 200, body: { status: true } };
      },
    });
    renderApp("/account");
    const links = await screen.findByRole("list", { name: "Link another sign-in method" });
    expect([...links.querySelectorAll("button")].map((b) => b.textContent)).toEqual(["Link Google"]);
    fireEvent.click(screen.getByRole("button", { name: "Link Google" }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("https://accounts.google.example/o/oauth2/auth?state=s"));
    expect(calls.find((c) => c.path === "/link-social")?.body).toEqual({ provider: "google", callbackURL: "/account" });

    // Asked first: the dialog's confirm button unlinks.
    fireEvent.click(screen.getByRole("button", { name: "Unlink GitHub" }));
    expect(calls.some((c) => c.path === "/unlink-account")).toBe(false);
    fireEvent.click(within(await screen.findByRole("dialog", { name: "Unlink GitHub?" })).getByRole("button", { name: "Unlink" }));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Unlink GitHub" })).toBeNull());
    expect(calls.find((c) => c.path === "/unlink-account")?.body).toEqual({ providerId: "github", accountId: "x-github" });
    const after = await screen.findByRole("list", { name: "Link another sign-in method" });
    await waitFor(() => expect([...after.querySelectorAll("button")].map((b) => b.textContent)).toEqual(["Link GitHub", "Link Google"]));
    assign.mockRestore();
  });
});

describe("password section of the account page", () => {
  const account = (providerId: string) => ({ id: `a-${providerId}`, providerId, accountId: `x-${providerId}`, createdAt: "2026-01-01T00:00:00Z", updatedAt: "", scopes: [] });
  const accountPage = (accounts: ReturnType<typeof account>[], extra: Record<string, (call: Call) => Answer> = {}, signedIn = user) =>
    stubApi({
      "/get-session": () => ({ status: 200, body: { session, user: signedIn } }),
      "/list-sessions": () => ({ status: 200, body: [session] }),
      "/list-accounts": () => ({ status: 200, body: accounts }),
      ...extra,
    });

  it("offers the change-password form to a user with a password", async () => {
    accountPage([account("credential"), account("google")]);
    renderApp("/account");
    expect(await screen.findByLabelText("Current password")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Set a password" })).toBeNull();
  });

  it("sets a first password for a user without one (POST /set-password), with progress while it waits", async () => {
    let answer: (value: { status: number; body: unknown }) => void = () => undefined;
    const calls = accountPage([account("google")], { "/set-password": () => new Promise((resolve) => (answer = resolve)) });
    renderApp("/account");
    const button = await screen.findByRole("button", { name: "Set a password" });
    expect(screen.queryByLabelText("Current password")).toBeNull();
    fireEvent.change(screen.getByLabelText("New password"), { target: { value: "first-password-1" } });
    fireEvent.click(button);
    await waitFor(() => expect(calls.find((c) => c.path === "/set-password")?.body).toEqual({ newPassword: "first-password-1" }));
    act(() => answer({ status: 200, body: { status: true } }));
    await waitFor(() => expect(calls.filter((c) => c.path === "/list-accounts").length).toBeGreaterThan(1));
  });

  it("from a stale session, offers to mail a link to set the password instead (a reset link to their own address)", async () => {
    const calls = accountPage([account("google")], {
      "/set-password": () => ({ status: 403, body: { code: "SESSION_IS_NOT_FRESH", message: "Session is not fresh" } }),
      "/forget-password": () => ({ status: 200, body: { status: true, message: "sent" } }),
    });
    renderApp("/account");
    fireEvent.change(await screen.findByLabelText("New password"), { target: { value: "first-password-1" } });
    fireEvent.click(screen.getByRole("button", { name: "Set a password" }));
    fireEvent.click(await screen.findByRole("button", { name: "Email me a link" }));
    expect(await screen.findByText("We sent a link to ada@example.com. Open it to choose your password.")).toBeTruthy();
    expect(calls.find((c) => c.path === "/forget-password")?.body).toEqual({ email: "ada@example.com", redirectTo: "/reset-password" });
  });

  it("asks no password of a user without one: two-factor says to set one first, deleting the account has no password field", async () => {
    accountPage([account("google")], {}, { ...user, twoFactorEnabled: false } as typeof user);
    renderApp("/account");
    expect(await screen.findByText("Two-factor authentication asks for your password: set a password first.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Set up two-factor authentication" })).toBeNull();
    expect(screen.getByRole("button", { name: "Delete my account" })).toBeTruthy();
    // Only the first password's own field.
    expect([...document.querySelectorAll<HTMLInputElement>('input[type="password"]')].map((input) => input.name)).toEqual(["newPassword"]);
  });

  it("asks the password where one exists: two-factor set-up and deleting the account", async () => {
    accountPage([account("credential")], {}, { ...user, twoFactorEnabled: false } as typeof user);
    renderApp("/account");
    expect(await screen.findByRole("button", { name: "Set up two-factor authentication" })).toBeTruthy();
    // Current and new password, two-factor's, and the deletion's.
    await waitFor(() => expect(document.querySelectorAll('input[type="password"]')).toHaveLength(4));
    expect(document.querySelector('input[name="deletePassword"]')).not.toBeNull();
  });

  it("from a stale session, asks a user without a password to verify their address first, and mails nothing", async () => {
    const calls = accountPage(
      [account("github")],
      { "/set-password": () => ({ status: 403, body: { code: "SESSION_IS_NOT_FRESH", message: "Session is not fresh" } }) },
      { ...user, emailVerified: false },
    );
    renderApp("/account");
    fireEvent.change(await screen.findByLabelText("New password"), { target: { value: "first-password-1" } });
    fireEvent.click(screen.getByRole("button", { name: "Set a password" }));
    expect(await screen.findByText("You have no password yet. Verify your email address first, then you can set one here.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Email me a link" })).toBeNull();
    expect(calls.some((c) => c.path === "/forget-password")).toBe(false);
  });

  it("says a user with no password, no linked account and no passkey signs in by mail; passkeys are counted", async () => {
    accountPage([], { "/passkey/list-user-passkeys": () => ({ status: 200, body: [] }) });
    renderApp("/account");
    expect(await screen.findByText("No password and no linked account: you sign in with a link or code sent to your email address.")).toBeTruthy();
    cleanup();
    const passkey = { id: "p1", name: "Laptop", createdAt: "2026-01-01T00:00:00Z", deviceType: "multiDevice", backedUp: true, transports: "internal", aaguid: null };
    accountPage([], { "/passkey/list-user-passkeys": () => ({ status: 200, body: [passkey, { ...passkey, id: "p2" }] }) });
    renderApp("/account");
    expect(await screen.findByText("Passkeys: 2")).toBeTruthy();
    expect(screen.queryByText(/No password and no linked account/)).toBeNull();
  });
});

describe("admin area", () => {
  const listed = { ...user, id: "u2", name: "Tom", email: "tom@example.com", role: "user", banned: false, banReason: null, banExpires: null };

  it("is hidden from a user the admin service says is no admin, and /admin sends them home", async () => {
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: { session, user: { ...user, role: "user" } } }),
      "/admin/has-permission": () => ({ status: 200, body: { error: null, success: false } }),
    });
    const { router } = renderApp("/admin");
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    await screen.findByRole("heading", { name: "Welcome, Ada" });
    expect(screen.queryByRole("link", { name: "Admin" })).toBeNull();
    expect(calls.some((c) => c.path === "/admin/list-users")).toBe(false);
  });

  it("does not even ask for a user with no role", async () => {
    const calls = stubApi({ "/get-session": () => ({ status: 200, body: { session, user: { ...user, role: null } } }) });
    const { router } = renderApp("/admin");
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(calls.some((c) => c.path.startsWith("/admin/"))).toBe(false);
  });

  it("shows an admin the link and the users table, searching, filtering, sorting and paging through the API's query", async () => {
    const calls = stubApi({
      "/get-session": () => ({ status: 200, body: { session, user: { ...user, role: "admin" } } }),
      "/admin/has-permission": (call) => ({ status: 200, body: { error: null, success: JSON.stringify(call.body) === JSON.stringify({ permissions: { user: ["list"] } }) } }),
      "/admin/list-users": () => ({ status: 200, body: { users: [listed], total: 45 } }),
    });
    const listQueries = () => calls.filter((c) => c.path === "/admin/list-users").map((c) => c);
    let lastUrl = "";
    const realFetch = globalThis.fetch;
    vi.stubGlobal("fetch", (input: string, init?: RequestInit) => {
      if (input.includes("/admin/list-users")) lastUrl = input;
      return realFetch(input, init);
    });
    renderApp("/admin");
    await screen.findByRole("link", { name: "Admin" });
    await screen.findByRole("link", { name: "Tom" });
    expect(new URL(lastUrl, "http://app.test").searchParams.toString()).toBe("sortBy=createdAt&sortDirection=desc&limit=20&offset=0");
    expect(screen.getByRole("status").textContent).toBe("1 to 1 of 45");

    fireEvent.change(screen.getByLabelText("Search in"), { target: { value: "name" } });
    fireEvent.change(screen.getByLabelText("Match"), { target: { value: "starts_with" } });
    fireEvent.change(screen.getByLabelText("Search"), { target: { value: " To " } });
    fireEvent.click(screen.getByRole("button", { name: "Search" }));
    await waitFor(() => expect(new URL(lastUrl, "http://app.test").searchParams.get("searchValue")).toBe("To"));
    expect(Object.fromEntries(new URL(lastUrl, "http://app.test").searchParams)).toMatchObject({ searchField: "name", searchOperator: "starts_with" });

    fireEvent.change(screen.getByLabelText("Show"), { target: { value: "banned" } });
    await waitFor(() =>
      expect(Object.fromEntries(new URL(lastUrl, "http://app.test").searchParams)).toMatchObject({ filterField: "banned", filterValue: "true", filterOperator: "eq" }),
    );

    fireEvent.click(screen.getByRole("button", { name: "Email" }));
    await waitFor(() => expect(Object.fromEntries(new URL(lastUrl, "http://app.test").searchParams)).toMatchObject({ sortBy: "email", sortDirection: "asc" }));
    expect(screen.getByRole("columnheader", { name: /Email/ }).getAttribute("aria-sort")).toBe("ascending");

    fireEvent.click(screen.getByRole("button", { name: "Next page" }));
    await waitFor(() => expect(new URL(lastUrl, "http://app.test").searchParams.get("offset")).toBe("20"));
    expect(listQueries().length).toBeGreaterThanOrEqual(5);
  });

  it("shows a total that is only a lower bound as such ('of 10,000+'), and offers the next page after a full one", async () => {
    const page = Array.from({ length: 20 }, (_, i) => ({ ...listed, id: `u${i + 10}`, name: `User ${i}` }));
    let total = 10000;
    stubApi({
      "/get-session": () => ({ status: 200, body: { session, user: { ...user, role: "admin" } } }),
      "/admin/has-permission": () => ({ status: 200, body: { error: null, success: true } }),
      "/admin/list-users": () => ({ status: 200, body: { users: page, total, totalIsLowerBound: true } }),
    });
    renderApp("/admin");
    await screen.findByRole("link", { name: "User 0" });
    expect(screen.getByRole("status").textContent).toBe("1 to 20 of 10,000+");
    cleanup();
    // A count limit as small as the page: "20+" is no last page.
    total = 20;
    renderApp("/admin");
    await screen.findByRole("link", { name: "User 0" });
    expect(screen.getByRole("status").textContent).toBe("1 to 20 of 20+");
    expect(screen.getByRole("button", { name: "Next page" }).hasAttribute("disabled")).toBe(false);
  });
});

describe("reset password screen", () => {
  it.each(["/reset-password?token=tok-1", "/reset-password/tok-1"])(
    "takes the token out of the address of %s at once (no history entry keeps it) and resets with it",
    async (path) => {
      const calls = stubApi({ "/get-session": () => ({ status: 200, body: null }), "/reset-password": () => ({ status: 200, body: { status: true } }) });
      const { history } = renderApp(path);
      await waitFor(() => expect(history.location.href).toBe("/reset-password"));
      expect(history.length).toBe(1);
      fireEvent.change(await screen.findByLabelText("New password"), { target: { value: "new-password-1" } });
      fireEvent.click(screen.getByRole("button", { name: "Set new password" }));
      expect(await screen.findByText("Your password has been changed. You can now sign in with it.")).toBeTruthy();
      expect(calls.find((c) => c.path === "/reset-password")?.body).toEqual({ newPassword: "new-password-1", token: "tok-1" });
      expect(history.location.href).toBe("/reset-password");
    },
  );

  it("keeps the gateway's error in the address and says it", async () => {
    stubApi({ "/get-session": () => ({ status: 200, body: null }) });
    const { history } = renderApp("/reset-password?error=INVALID_TOKEN");
    expect(await screen.findByText("This link is not valid. It may have been used already or have expired.")).toBeTruthy();
    expect(history.location.href).toBe("/reset-password?error=INVALID_TOKEN");
  });
});

describe("verify email screen", () => {
  it("takes the token out of the address at once (no history entry keeps it) and verifies with it", async () => {
    stubApi({ "/get-session": () => ({ status: 200, body: null }), "/verify-email": () => ({ status: 200, body: { status: true, user } }) });
    // The stub records paths only: the token goes in the query.
    const stubbed = globalThis.fetch;
    const urls: string[] = [];
    vi.stubGlobal("fetch", (input: string, init?: RequestInit) => {
      urls.push(input);
      return stubbed(input, init);
    });
    const { history } = renderApp("/verify-email?token=tok-2");
    await waitFor(() => expect(history.location.href).toBe("/verify-email"));
    expect(history.length).toBe(1);
    expect(await screen.findByText("Your email address is verified.")).toBeTruthy();
    expect(urls.filter((url) => url.includes("/verify-email"))).toEqual(["/api/auth/verify-email?token=tok-2"]);
  });
});
