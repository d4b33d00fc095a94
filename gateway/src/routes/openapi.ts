/**
 * GET /openapi.json: the OpenAPI 3.1 document of this API (http/openapi.ts). It is generated once at start;
 * only its server URL is the request's (AUTH_BASE_URL, or the base URL the request names when that is unset).
 */
import { Router } from "express";
import { type DocumentOptions, openApiDocument } from "../http/openapi.js";

export function openApiRoutes(options: Omit<DocumentOptions, "baseUrl">): Router {
  const router = Router();
  const { servers: _servers, ...rest } = openApiDocument({ ...options, baseUrl: "" });
  const afterServers = JSON.stringify(rest).slice(1);
  router.get("/openapi.json", (req, res) => {
    res.type("json").send(`{"servers":[{"url":${JSON.stringify(req.facts.baseUrl)}}],${afterServers}`);
  });
  return router;
}
