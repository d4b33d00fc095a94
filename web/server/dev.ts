/**
 * The `web` process of `make dev`: Vite's dev server for the app (hot reload), proxying /api/auth to the
 * gateway (web/vite.config.ts). Logs one JSON "listening" line, as every process of the launcher does.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "vite";

const server = await createServer({ configFile: join(fileURLToPath(new URL(".", import.meta.url)), "..", "vite.config.ts") });
await server.listen();
const address = server.resolvedUrls?.local[0] ?? "";
console.log(JSON.stringify({ time: new Date().toISOString(), level: "info", service: "web", msg: "listening", url: address }));
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
