/**
 * The app's routes, the layout around them and the guards (code-based TanStack Router). The screens of a
 * signed-in person (account, two-factor, organizations, admin area, mailbox) are loaded when their route
 * is first visited (or hovered: preload on intent), each as its own chunk, so the sign-in screen loads
 * without them, the admin area, the organization screens or the QR code library.
 */
import { type QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, Link, Outlet, redirect, type RouterHistory, useNavigate } from "@tanstack/react-router";
import { api } from "./api";
import { Page } from "./components";
import { useT } from "./i18n";
import { ImpersonationBanner } from "./impersonation";
import { EmailCodeSignIn, ResetPasswordByCode } from "./mail-sign-in";
import { organizationsQuery } from "./organization-queries";
import { OrganizationSwitcher } from "./organization-switcher";
import { safeRedirect } from "./safe-redirect";
import { sessionQuery, useSession } from "./session";
import { ErrorPage, NotFound } from "./screens/error-page";
import { ForgotPassword, ResetPassword } from "./screens/password-reset";
import { SignIn } from "./screens/sign-in";
import { SignUp } from "./screens/sign-up";
import { VerifyEmail } from "./screens/verify-email";

// Loaded on first use, one chunk per module.
const account = () => import("./screens/account");
const admin = () => import("./screens/admin");
const mailbox = () => import("./screens/mailbox");
const organizations = () => import("./screens/organizations");
const twoFactor = () => import("./screens/two-factor");

interface RouterContext {
  queryClient: QueryClient;
}

/** Query values are strings (or absent): nothing else from the address bar reaches a screen. */
const strings = (keys: string[]) => (search: Record<string, unknown>) =>
  Object.fromEntries(
    keys.flatMap((key) => (typeof search[key] === "string" ? [[key, search[key] as string]] : typeof search[key] === "number" ? [[key, String(search[key])]] : [])),
  );

function Layout() {
  const t = useT();
  const session = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  // The organization screens and the switcher only where the platform has the organization API (the list answers).
  const organizations = useQuery(organizationsQuery(session.data?.user.id));
  const isAdmin = useQuery(adminQuery(session.data?.user.id, session.data?.user.role));
  const mailbox = useQuery({
    queryKey: ["outbox-available"],
    queryFn: () =>
      api.devOutbox("-").then(
        () => true,
        () => false,
      ),
    staleTime: Infinity,
  });
  const signOut = useMutation({
    mutationFn: api.signOut,
    onSuccess: async () => {
      queryClient.setQueryData(sessionQuery.queryKey, null);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== "session" && query.queryKey[0] !== "outbox-available" });
      await navigate({ to: "/sign-in" });
    },
  });
  return (
    <>
      <a className="skip-link" href="#main">
        {t("common.layout.skipToContent")}
      </a>
      {session.data?.session.impersonatedBy && <ImpersonationBanner user={session.data.user} />}
      <header className="top">
        {/* The product's name, the same in every language. */}
        <Link to="/" className="brand">
          Auth Platform
        </Link>
        {session.data && organizations.data && organizations.data.length > 0 && (
          <OrganizationSwitcher organizations={organizations.data} activeId={session.data.session.activeOrganizationId ?? null} />
        )}
        <nav aria-label={t("common.layout.mainNavigation")}>
          <ul>
            {session.data ? (
              <>
                <li>
                  <Link to="/account">{t("common.layout.account")}</Link>
                </li>
                {organizations.isSuccess && (
                  <li>
                    <Link to="/organizations">{t("common.layout.organizations")}</Link>
                  </li>
                )}
                {isAdmin.data && (
                  <li>
                    <Link to="/admin">{t("common.layout.admin")}</Link>
                  </li>
                )}
                <li>
                  <button type="button" className="link" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
                    {signOut.isPending ? t("common.layout.signingOut") : t("common.layout.signOut")}
                  </button>
                </li>
              </>
            ) : (
              <>
                <li>
                  <Link to="/sign-in">{t("common.layout.signIn")}</Link>
                </li>
                <li>
                  <Link to="/sign-up">{t("common.layout.signUp")}</Link>
                </li>
              </>
            )}
            {mailbox.data && (
              <li>
                <Link to="/dev/mailbox">{t("common.layout.mailbox")}</Link>
              </li>
            )}
          </ul>
        </nav>
      </header>
      <main id="main">
        <Outlet />
      </main>
    </>
  );
}

function Home() {
  const t = useT();
  const session = useSession();
  return (
    <Page title={session.data ? t("common.layout.welcomeName", { name: session.data.user.name }) : t("common.layout.welcome")}>
      {session.data ? (
        <p>
          {t("common.layout.signedInAs", { email: session.data.user.email })} <Link to="/account">{t("common.layout.manageAccount")}</Link>
        </p>
      ) : (
        <>
          <p>{t("common.layout.signedOut")}</p>
          <p className="row">
            <Link to="/sign-in">{t("common.layout.signIn")}</Link>
            <Link to="/sign-up">{t("common.layout.createAccount")}</Link>
          </p>
        </>
      )}
    </Page>
  );
}

function Loading() {
  const t = useT();
  return (
    <p role="status" className="muted">
      {t("common.layout.loading")}
    </p>
  );
}

function Goodbye() {
  const t = useT();
  return (
    <Page title={t("common.layout.accountDeleted")}>
      <p role="status">{t("common.layout.accountDeletedText")}</p>
      <p>
        <Link to="/">{t("common.layout.backToApp")}</Link>
      </p>
    </Page>
  );
}

const rootRoute = createRootRouteWithContext<RouterContext>()({ component: Layout, notFoundComponent: NotFound });

/**
 * The session as the guards read it: at most a few seconds old, so a session revoked from another device
 * does not keep a stale account page (or keep someone away from sign-in).
 */
const freshSession = (queryClient: QueryClient) => queryClient.fetchQuery({ ...sessionQuery, staleTime: 5_000 });

/** Signed-out visitors go to sign-in and come back here afterwards. */
const requireSession = async ({ context, location }: { context: RouterContext; location: { href: string } }) => {
  const current = await freshSession(context.queryClient);
  if (!current) throw redirect({ to: "/sign-in", search: { redirect: location.href } });
};

/** Signed-in visitors skip the sign-in and sign-up screens. */
const requireSignedOut = async ({ context, search }: { context: RouterContext; search: { redirect?: string } }) => {
  const current = await freshSession(context.queryClient);
  if (current) throw redirect({ to: safeRedirect(search.redirect) });
};

/**
 * Whether the signed-in user may use the admin area: the admin service answers (it knows the configured
 * admin roles); a user with no role is not asked.
 */
const adminQuery = (userId: string | undefined, role: string | null | undefined) => ({
  queryKey: ["admin-access", userId, role ?? ""],
  queryFn: () => (role ? api.admin.canManageUsers().catch(() => false) : Promise.resolve(false)),
  enabled: Boolean(userId),
  staleTime: 60_000,
});

/** The admin area: signed-out visitors go to sign-in first; everyone but admins to the home page. */
const requireAdmin = async ({ context, location }: { context: RouterContext; location: { href: string } }) => {
  const current = await freshSession(context.queryClient);
  if (!current) throw redirect({ to: "/sign-in", search: { redirect: location.href } });
  const allowed = await context.queryClient.fetchQuery(adminQuery(current.user.id, current.user.role));
  if (!allowed) throw redirect({ to: "/" });
};

const routes = [
  createRoute({ getParentRoute: () => rootRoute, path: "/", component: Home }),
  createRoute({ getParentRoute: () => rootRoute, path: "/sign-in", validateSearch: strings(["redirect", "error"]), beforeLoad: requireSignedOut, component: SignIn }),
  createRoute({ getParentRoute: () => rootRoute, path: "/sign-in/code", validateSearch: strings(["redirect"]), beforeLoad: requireSignedOut, component: EmailCodeSignIn }),
  createRoute({ getParentRoute: () => rootRoute, path: "/sign-up", validateSearch: strings(["redirect"]), beforeLoad: requireSignedOut, component: SignUp }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: "/two-factor",
    validateSearch: strings(["redirect", "methods"]),
    component: lazyRouteComponent(twoFactor, "TwoFactorChallenge"),
  }),
  createRoute({ getParentRoute: () => rootRoute, path: "/forgot-password", component: ForgotPassword }),
  createRoute({ getParentRoute: () => rootRoute, path: "/forgot-password/code", component: ResetPasswordByCode }),
  createRoute({ getParentRoute: () => rootRoute, path: "/reset-password", validateSearch: strings(["token", "error"]), component: ResetPassword }),
  createRoute({ getParentRoute: () => rootRoute, path: "/reset-password/$token", validateSearch: strings(["error"]), component: ResetPassword }),
  createRoute({ getParentRoute: () => rootRoute, path: "/verify-email", validateSearch: strings(["token", "error"]), component: VerifyEmail }),
  createRoute({ getParentRoute: () => rootRoute, path: "/error", validateSearch: strings(["error"]), component: ErrorPage }),
  createRoute({ getParentRoute: () => rootRoute, path: "/goodbye", component: Goodbye }),
  createRoute({ getParentRoute: () => rootRoute, path: "/dev/mailbox", component: lazyRouteComponent(mailbox, "Mailbox") }),
  createRoute({ getParentRoute: () => rootRoute, path: "/account", beforeLoad: requireSession, component: lazyRouteComponent(account, "Account") }),
  createRoute({ getParentRoute: () => rootRoute, path: "/organizations", beforeLoad: requireSession, component: lazyRouteComponent(organizations, "Organizations") }),
  createRoute({ getParentRoute: () => rootRoute, path: "/accept-invitation/$id", beforeLoad: requireSession, component: lazyRouteComponent(organizations, "AcceptInvitation") }),
  createRoute({ getParentRoute: () => rootRoute, path: "/admin", beforeLoad: requireAdmin, component: lazyRouteComponent(admin, "AdminUsers") }),
  createRoute({ getParentRoute: () => rootRoute, path: "/admin/users/$id", beforeLoad: requireAdmin, component: lazyRouteComponent(admin, "AdminUser") }),
  createRoute({ getParentRoute: () => rootRoute, path: "/admin/audit", beforeLoad: requireAdmin, component: lazyRouteComponent(admin, "AuditLog") }),
  createRoute({ getParentRoute: () => rootRoute, path: "/admin/webhooks", beforeLoad: requireAdmin, component: lazyRouteComponent(admin, "AdminWebhooks") }),
];

/** The app's router; tests pass a memory history. */
export function createAppRouter(queryClient: QueryClient, history?: RouterHistory) {
  return createRouter({
    routeTree: rootRoute.addChildren(routes),
    context: { queryClient },
    defaultPreload: "intent",
    // A screen's chunk that takes a moment (a slow network) says so instead of leaving the page blank.
    defaultPendingComponent: Loading,
    scrollRestoration: true,
    ...(history ? { history } : {}),
  });
}

declare module "@tanstack/react-router" {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
