/**
 * The analytics script of SPEC §2, loaded from a relative path set at build time (VITE_ANALYTICS_PATH, e.g.
 * "/_vercel/insights/script.js"), and not at all when it is unset. Only a path on this origin is accepted.
 */
export function loadAnalytics(path: string | undefined = import.meta.env.VITE_ANALYTICS_PATH): void {
  if (!path || !path.startsWith("/") || path.startsWith("//") || path.includes("\\")) return;
  const script = document.createElement("script");
  script.src = path;
  script.defer = true;
  document.head.append(script);
}
