/**
 * GET /openapi.json: the OpenAPI 3.1 document of this API (http/openapi.ts). It is generated on the first
 * request (about 0.4 s of schema conversion, kept off the start-up path) and kept; only its server URL is the
 * request's (AUTH_BASE_URL, or the base URL the request names when that is unset). http/openapi.ts itself,
 * with its operation table and response schemas, is loaded then too: a gateway nobody asks for the
 * document never holds them.
 */
import { Router } from "express";
import type { DocumentOptions } from "../http/openapi.js";

export function openApiRoutes(options: Omit<DocumentOptions, "baseUrl">): Router {
  const router = Router();
  let afterServers: string | undefined;
  router.get("/openapi.json", async (req, res) => {
    if (afterServers === undefined) {
      const { openApiDocument } = await import("../http/openapi.js");
      const { servers: _servers, ...rest } = openApiDocument({ ...options, baseUrl: "" });
      afterServers = JSON.stringify(rest).slice(1);
    }
    res.type("json").send(`{"servers":[{"url":${JSON.stringify(req.facts.baseUrl)}}],${afterServers}`);
  });
  return router;
}
