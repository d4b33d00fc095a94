/** POST /sign-in/email and /sign-in/username. */
import { Router } from "express";
import * as z from "zod";
import { call } from "@auth-platform/proto/rpc-client";
import { parseBody } from "../http/body.js";
import { publicUser } from "../http/public-shapes.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";

const signInEmailBody = z.object({
  email: z.string().max(255),
  password: z.string().max(1024),
  callbackURL: z.string().nullish(),
  rememberMe: z.boolean().nullish(),
});

const signInUsernameBody = z.object({
  username: z.string().max(255),
  password: z.string().max(1024),
  rememberMe: z.boolean().nullish(),
});

export function signInRoutes(deps: RouteDeps): Router {
  const router = Router();
  const identity = deps.clients.identity;

  router.post("/sign-in/email", async (req, res) => {
    const body = parseBody(req, signInEmailBody);
    const rememberMe = body.rememberMe ?? true;
    const { user, session } = await call(identity, identity.signInEmail, {
      email: body.email,
      password: body.password,
      rememberMe,
      client: clientOf(req),
    });
    issueSession(res, deps, session!, rememberMe);
    res.json({ redirect: Boolean(body.callbackURL), token: session!.token, url: req.callbacks.body.callbackURL?.toString(), user: publicUser(user!) });
  });

  router.post("/sign-in/username", async (req, res) => {
    const body = parseBody(req, signInUsernameBody);
    const rememberMe = body.rememberMe ?? true;
    const { user, session } = await call(identity, identity.signInUsername, {
      username: body.username,
      password: body.password,
      rememberMe,
      client: clientOf(req),
    });
    issueSession(res, deps, session!, rememberMe);
    res.json({ token: session!.token, user: publicUser(user!) });
  });
  return router;
}
