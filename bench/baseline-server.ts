/**
 * The baseline: a plain express 5 app in its own process answering the same routes with the same JSON the
 * gateway answered (captured from a real response), and the same Set-Cookie headers when there were any.
 * It parses JSON request bodies like the gateway does and, like the gateway, has etags and x-powered-by
 * off, so the ratio to it isolates what our own stack adds.
 *
 * Env: PORT, BASELINE_ROUTES (path of a JSON file: [{ method, path, status, headers, body }], body the
 * exact response text).
 */
import { readFileSync } from "node:fs";
import express from "express";

interface Route {
  method: "GET" | "POST";
  path: string;
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

const routes = JSON.parse(readFileSync(process.env.BASELINE_ROUTES!, "utf8")) as Route[];
const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.use(express.json({ limit: "1mb", strict: true }));

for (const route of routes) {
  const value: unknown = JSON.parse(route.body);
  const handler = (_req: express.Request, res: express.Response) => {
    for (const [name, header] of Object.entries(route.headers)) res.setHeader(name, header);
    res.status(route.status).json(value);
  };
  if (route.method === "GET") app.get(route.path, handler);
  else app.post(route.path, handler);
}

const port = Number(process.env.PORT ?? 0);
const server = app.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ level: "info", service: "baseline", msg: "listening", port: typeof address === "object" && address ? address.port : port })}\n`);
});
server.keepAliveTimeout = 65_000;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
