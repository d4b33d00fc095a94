/**
 * The settings the built app takes at run time rather than build time, so one build serves every install:
 * the API's base path (the gateway's AUTH_BASE_PATH, default /api/auth) and the path of the analytics
 * script (WEB_ANALYTICS_PATH; unset: none). The web server and Vite's dev server write them into index.html
 * (web/server/runtime-config.ts): the base path as a meta tag this module reads, the analytics script as
 * its own script tag. No DOM here: the servers import the names and rules too.
 */
export const DEFAULT_API_BASE_PATH = "/api/auth";

/** The meta tag of index.html that carries the API's base path. */
export const API_BASE_PATH_META = "auth-api-base-path";

/**
 * A path on this origin made only of characters that need no escaping in HTML or a URL: "/" then
 * letters, digits and - . _ ~ /, never "//" (another host). Neither base path nor script comes from
 * anywhere else.
 */
export const isLocalPath = (value: string): boolean => /^\/[A-Za-z0-9\-._~/]*$/.test(value) && !value.includes("//");

/** The API's base path the page was served with (the meta tag), or the default when there is none. */
export function apiBasePath(doc: Pick<Document, "querySelector"> = document): string {
  const value = doc.querySelector<HTMLMetaElement>(`meta[name="${API_BASE_PATH_META}"]`)?.content;
  return value && isLocalPath(value) && value !== "/" ? value.replace(/\/+$/, "") : DEFAULT_API_BASE_PATH;
}
