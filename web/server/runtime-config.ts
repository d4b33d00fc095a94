/**
 * The web app's run-time settings (web/src/runtime-config.ts) from the environment, and written into
 * index.html, by the production server (web-server.ts) and Vite's dev server (web/vite.config.ts) alike:
 *   AUTH_BASE_PATH       the API's base path, the gateway's own variable (default /api/auth): the path the
 *                        server passes on to the gateway, and the one the app calls.
 *   WEB_ANALYTICS_PATH   a relative path of an analytics script (e.g. /_vercel/insights/script.js);
 *                        unset or empty: no script tag at all. Never on a page whose address carries a
 *                        secret (pageConfig below).
 */
import { API_BASE_PATH_META, DEFAULT_API_BASE_PATH, isLocalPath } from "../src/runtime-config.js";

export interface RuntimeConfig {
  /** The API's base path, no trailing slash, e.g. /api/auth. */
  basePath: string;
  /** The analytics script's path on this origin; undefined: none. */
  analyticsPath?: string;
}

export const DEFAULT_RUNTIME_CONFIG: RuntimeConfig = { basePath: DEFAULT_API_BASE_PATH };

/** Reads and checks the variables; a bad value stops the process with a sentence naming it. */
export function runtimeConfigFromEnv(env: Record<string, string | undefined>): RuntimeConfig {
  const basePath = (env.AUTH_BASE_PATH || DEFAULT_API_BASE_PATH).replace(/\/+$/, "");
  if (!isLocalPath(basePath) || basePath === "") {
    throw new Error(`AUTH_BASE_PATH must be a path below / of letters, digits and - . _ ~ / (e.g. /api/auth), got "${env.AUTH_BASE_PATH}"`);
  }
  const analyticsPath = env.WEB_ANALYTICS_PATH || undefined;
  if (analyticsPath !== undefined && !isLocalPath(analyticsPath)) {
    throw new Error(`WEB_ANALYTICS_PATH must be a relative path on this origin (e.g. /_vercel/insights/script.js), got "${analyticsPath}"`);
  }
  return { basePath, ...(analyticsPath ? { analyticsPath } : {}) };
}

/** index.html with the settings before </head>: the base path's meta tag, and the analytics script when set. */
export function injectRuntimeConfig(html: string, config: RuntimeConfig): string {
  // isLocalPath allows no character that needs escaping in an attribute; checked again for callers that
  // build a config by hand.
  for (const path of [config.basePath, config.analyticsPath]) if (path !== undefined && !isLocalPath(path)) throw new Error(`not a local path: ${path}`);
  const tags = [`<meta name="${API_BASE_PATH_META}" content="${config.basePath}" />`];
  if (config.analyticsPath) tags.push(`<script defer src="${config.analyticsPath}"></script>`);
  return html.replace("</head>", `  ${tags.join("\n    ")}\n  </head>`);
}

/**
 * The app's pages that a mailed link opens with a secret in the address: the password-reset token
 * (/reset-password?token= and /reset-password/{token}), the email verification token (/verify-email?token=)
 * and an invitation's id (/accept-invitation/{id}). Compared lower case: the router matches paths so.
 */
const SECRET_PAGES = ["/reset-password", "/verify-email", "/accept-invitation"];

/** Whether the address of a page carries a secret: one of SECRET_PAGES, or any page with a token parameter. */
export function carriesSecret(url: URL): boolean {
  if (url.searchParams.has("token")) return true;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname).toLowerCase();
  } catch {
    path = url.pathname.toLowerCase();
  }
  return SECRET_PAGES.some((page) => path === page || path.startsWith(`${page}/`));
}

/**
 * The settings of the page at `url`: no analytics script where the address carries a secret, as a third
 * party's script can read the address (and report it as the page viewed) before the app takes it out.
 */
export function pageConfig(config: RuntimeConfig, url: URL): RuntimeConfig {
  return config.analyticsPath && carriesSecret(url) ? { basePath: config.basePath } : config;
}
