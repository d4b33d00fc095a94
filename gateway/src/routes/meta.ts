/** GET /ok (liveness for probes) and GET /error (the page redirects land on). */
import { defineRoute, type Route } from "../http/define-route.js";
import { okSchema } from "../http/public-schemas.js";
import { API_CONTENT_SECURITY_POLICY } from "../http/security-headers.js";

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function errorPage(code: string, appUrl: string): string {
  const safeCode = escapeHtml(code.slice(0, 200));
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in error</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2937}code{background:#f3f4f6;padding:.15rem .4rem;border-radius:.25rem}a{color:#2563eb}</style>
</head>
<body>
<h1>Something went wrong</h1>
<p>The request could not be completed. Error code: <code>${safeCode}</code></p>
<p><a href="${escapeHtml(appUrl)}">Back to the application</a></p>
</body>
</html>`;
}

export function metaRoutes(appUrl: string | undefined): Route[] {
  return [
    defineRoute({ method: "get", path: "/ok", tag: "Meta", summary: "Liveness", response: okSchema }, ({ json }) => json({ ok: true })),
    defineRoute({ method: "get", path: "/error", tag: "Meta", summary: "The page error redirects land on", html: true }, ({ req, res }) => {
      const code = typeof req.query.error === "string" && req.query.error ? req.query.error : "unknown_error";
      res.type("html").setHeader("Content-Security-Policy", `${API_CONTENT_SECURITY_POLICY}; style-src 'unsafe-inline'`);
      res.send(errorPage(code, appUrl ?? "/"));
    }),
  ];
}
