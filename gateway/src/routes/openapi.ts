/** GET /openapi.json: the OpenAPI 3.1 document of this API (http/openapi.ts), built once at start. */
import { Router } from "express";
import { type DocumentOptions, openApiDocument } from "../http/openapi.js";

export function openApiRoutes(options: DocumentOptions): Router {
  const router = Router();
  const document = JSON.stringify(openApiDocument(options));
  router.get("/openapi.json", (_req, res) => {
    res.type("json").send(document);
  });
  return router;
}
