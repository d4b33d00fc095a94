/**
 * The web app's Vite config. In development (`make dev`, the browser tests) the dev server proxies
 * /api/auth to the gateway, so the app and the API share one origin as behind the Ingress: the session
 * cookie and the gateway's origin check work unchanged.
 */
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export const GATEWAY_URL = process.env.AUTH_GATEWAY_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  server: {
    host: process.env.WEB_HOST ?? "127.0.0.1",
    port: Number(process.env.WEB_PORT ?? 5173),
    strictPort: true,
    proxy: { "/api/auth": { target: GATEWAY_URL, xfwd: true } },
  },
  build: { outDir: "../dist/web", emptyOutDir: true, sourcemap: true },
});
