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
import { safeRedirect } from "./safe-redirect";
import { sessionQuery, useSession } from "./session";
import { ImpersonationBanner } from "./impersonation";
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
  const session = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  // The organization screens only where the platform has the organization API.
  const organizations = useQuery({
    queryKey: ["organization-api", session.data?.user.id],
    queryFn: () =>
      api.organization.list().then(
        () => true,
        () => false,
      ),
    enabled: Boolean(session.data),
    staleTime: Infinity,
  });
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
        Skip to content
      </a>
      {session.data?.session.impersonatedBy && <ImpersonationBanner user={session.data.user} />}
      <header className="top">
        <Link to="/" className="brand">
          Auth Platform
        </Link>
        <nav aria-label="Main">
          <ul>
            {session.data ? (
              <>
                <li>
                  <Link to="/account">Account</Link>
                </li>
                {organizations.data && (
                  <li>
                    <Link to="/organizations">Organizations</Link>
                  </li>
                )}
                {isAdmin.data && (
                  <li>
                    <Link to="/admin">Admin</Link>
                  </li>
                )}
                <li>
                  <button type="button" className="link" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
                    {signOut.isPending ? "Signing out…" : "Sign out"}
                  </button>
                </li>
              </>
            ) : (
              <>
                <li>
                  <Link to="/sign-in">Sign in</Link>
                </li>
                <li>
                  <Link to="/sign-up">Sign up</Link>
                </li>
              </>
            )}
            {mailbox.data && (
              <li>
                <Link to="/dev/mailbox">Mailbox</Link>
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
  const session = useSession();
  return (
    <Page title={session.data ? `Welcome, ${session.data.user.name}` : "Welcome"}>
      {session.data ? (
        <p>
          You are signed in as {session.data.user.email}. <Link to="/account">Manage your account</Link>.
        </p>
      ) : (
        <p>
          <Link to="/sign-in">Sign in</Link> or <Link to="/sign-up">create an account</Link>.
        </p>
      )}
    </Page>
  );
}

function Loading() {
  return (
    <p role="status" className="muted">
      Loading…
    </p>
  );
}

function Goodbye() {
  return (
    <Page title="Account deleted">
      <p role="status">Your account and everything in it has been deleted.</p>
      <p>
        <Link to="/">Back to the application</Link>
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
  createRoute({ getParentRoute: () => rootRoute, path: "/sign-in", validateSearch: strings(["redirect"]), beforeLoad: requireSignedOut, component: SignIn }),
  createRoute({ getParentRoute: () => rootRoute, path: "/sign-up", validateSearch: strings(["redirect"]), beforeLoad: requireSignedOut, component: SignUp }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: "/two-factor",
    validateSearch: strings(["redirect", "methods"]),
    component: lazyRouteComponent(twoFactor, "TwoFactorChallenge"),
  }),
  createRoute({ getParentRoute: () => rootRoute, path: "/forgot-password", component: ForgotPassword }),
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
