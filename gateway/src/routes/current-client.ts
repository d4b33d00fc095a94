/**
 * Calls only the current better-auth client generation makes, with no 1.1 counterpart:
 * POST /update-session and POST /is-username-available (usernameClient).
 */
import { Router } from "express";
import * as z from "zod";
import { call } from "@auth-platform/proto/rpc-client";
import { parseBody } from "../http/body.js";
import type { RouteDeps } from "./deps.js";
import { updateSessionResponse, usernameAvailabilityResponse } from "./responses.js";

export const usernameBody = z.object({ username: z.string().max(255) });

export function currentClientRoutes(deps: RouteDeps): Router {
  const router = Router();

  // The body carries configured additional session fields. None can be configured here, so every field is
  // ignored (as unknown fields are everywhere) and the answer is the caller's session as it stands.
  router.post("/update-session", async (req, res) => {
    const { session } = await deps.sessions.require(req);
    res.json(updateSessionResponse(session));
  });

  router.post("/is-username-available", async (req, res) => {
    const body = parseBody(req, usernameBody);
    const identity = deps.clients.identity;
    const { available } = await call(identity, identity.isUsernameAvailable, { username: body.username });
    res.json(usernameAvailabilityResponse(available));
  });
  return router;
}
