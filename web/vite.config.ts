/**
 * The web app's Vite config. In development (`make dev`) the dev server proxies the API's base path
 * (AUTH_BASE_PATH, default /api/auth) to the gateway, so the app and the API share one origin as behind the
 * Ingress: the session cookie and the gateway's origin check work unchanged. Its index.html carries the
 * same run-time settings the production server writes in (web/server/runtime-config.ts).
 */
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompressPlugin } from "./build/precompress.js";
import { injectRuntimeConfig, pageConfig, runtimeConfigFromEnv } from "./server/runtime-config.js";

export const GATEWAY_URL = process.env.AUTH_GATEWAY_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig(() => {
  const runtime = runtimeConfigFromEnv(process.env);
  return {
    root: import.meta.dirname,
    plugins: [
      react(),
      // The dev server only: a build's index.html gets its settings from the server that serves it.
      // The page's own address decides (no analytics script where it carries a token), as in production.
      {
        name: "runtime-config",
        apply: "serve",
        transformIndexHtml: (html: string, ctx: { path: string; originalUrl?: string }) =>
          injectRuntimeConfig(html, pageConfig(runtime, new URL(ctx.originalUrl ?? ctx.path, "http://dev.invalid"))),
      },
      // The build only: file.br and file.gz beside each script, style sheet, page and SVG (build/precompress.ts).
      precompressPlugin(),
    ],
    server: {
      host: process.env.WEB_HOST ?? "127.0.0.1",
      port: Number(process.env.WEB_PORT ?? 5173),
      strictPort: true,
      proxy: { [runtime.basePath]: { target: GATEWAY_URL, xfwd: true } },
    },
    // Source maps without the sourceMappingURL comment: browsers never ask for them, the server never serves
    // them (web/server/web-server.ts answers 404 for *.map), and `npm run build` moves them out of the public
    // folder to dist/sourcemaps/ for an error tracker (deploy/build.ts).
    build: { outDir: "../dist/web", emptyOutDir: true, sourcemap: "hidden" as const },
  };
});
