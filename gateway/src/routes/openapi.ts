/**
 * GET /openapi.json: the OpenAPI 3.1 document of this API (http/openapi.ts), built from the app's declared
 * routes (this one included). It is generated on the first request (about 0.4 s of schema conversion, kept
 * off the start-up path) and kept; only its server URL is the request's (AUTH_BASE_URL, or the base URL the
 * request names when that is unset). http/openapi.ts itself is loaded then too: a gateway nobody asks for
 * the document never holds it.
 */
import * as z from "zod";
import { defineRoute, type Route } from "../http/define-route.js";
import type { DocumentOptions } from "../http/openapi.js";

export function openApiRoutes(options: Omit<DocumentOptions, "baseUrl" | "routes"> & { routes: readonly Route[] }): Route[] {
  let afterServers: string | undefined;
  const document = defineRoute(
    { method: "get", path: "/openapi.json", tag: "Meta", summary: "This document", response: z.looseObject({ openapi: z.literal("3.1.0") }) },
    async ({ req, res }) => {
      if (afterServers === undefined) {
        const { openApiDocument } = await import("../http/openapi.js");
        const { servers: _servers, ...rest } = openApiDocument({ ...options, routes: options.routes.map((route) => route.spec), baseUrl: "" });
        afterServers = JSON.stringify(rest).slice(1);
      }
      res.type("json").send(`{"servers":[{"url":${JSON.stringify(req.facts.baseUrl)}}],${afterServers}`);
    },
  );
  return [document];
}
