/**
 * Calls only the current better-auth client generation makes, with no 1.1 counterpart:
 * POST /update-session and POST /is-username-available (usernameClient).
 */
import * as z from "zod";
import { call } from "@auth-platform/proto/rpc-client";
import { defineRoute, type Route } from "../http/define-route.js";
import { updateSessionSchema, usernameAvailabilitySchema } from "../http/public-schemas.js";
import type { RouteDeps } from "./deps.js";
import { updateSessionResponse, usernameAvailabilityResponse } from "./responses.js";

export const usernameBody = z.object({ username: z.string().max(255) });

export function currentClientRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];

  // The body carries configured additional session fields. None can be configured here, so every field is
  // ignored (as unknown fields are everywhere) and the answer is the caller's session as it stands.
  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/update-session",
        tag: "Sessions",
        summary: "The caller's session (no additional session fields are configurable)",
        session: "required",
        response: updateSessionSchema,
      },
      async ({ session: { session }, json }) => {
        json(updateSessionResponse(session));
      },
    ),
  );

  routes.push(
    defineRoute(
      { method: "post", path: "/is-username-available", tag: "Account", summary: "Whether a username is free", body: usernameBody, response: usernameAvailabilitySchema },
      async ({ body, json }) => {
        const identity = deps.clients.identity;
        const { available } = await call(identity, identity.isUsernameAvailable, { username: body.username });
        json(usernameAvailabilityResponse(available));
      },
    ),
  );
  return routes;
}
