/**
 * The OpenAPI document: valid OpenAPI 3.1 (the specification's own JSON Schema), every schema in it a valid
 * JSON Schema 2020-12, and its operations exactly the express app's routes (a route added without a registry
 * entry, or an entry left behind by a removed route, fails here).
 */
import type { Router } from "express";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createLogger } from "@auth-platform/runtime/log";
import { createApp, declaredRoutes } from "../src/app.js";
import type { Clients } from "../src/clients.js";
import { gatewayConfig } from "../src/config.js";
import { openApiDocument } from "../src/http/openapi.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: Router & { stack?: Layer[] } };

/** "get /path" for every route of the app, through the nested routers. */
function expressRoutes(stack: Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route)
      return Object.keys(layer.route.methods)
        .filter((m) => m !== "_all")
        .map((method) => `${method} ${layer.route!.path}`);
    return layer.handle?.stack ? expressRoutes(layer.handle.stack) : [];
  });
}

/** Clients whose every RPC is a no-op: building the routers only reads them. */
const anyClients = new Proxy({}, { get: () => new Proxy({}, { get: () => () => undefined }) }) as Clients;

function appOf(env: Record<string, string>) {
  const config = gatewayConfig({ AUTH_SECRET: "x".repeat(32), ...env });
  return createApp({ config, clients: anyClients, counters: {} as never, log: createLogger("gateway", "error", () => {}) }).app;
}

function appRoutes(env: Record<string, string>): string[] {
  return expressRoutes((appOf(env) as unknown as { router: { stack: Layer[] } }).router.stack).sort();
}

/** The document of an app's declared routes. */
const documentOf = (env: Record<string, string>, devMailbox: boolean, sessionCookieName = "better-auth.session_token") =>
  openApiDocument({ routes: declaredRoutes(appOf(env)), baseUrl: "http://127.0.0.1:3000/api/auth", devMailbox, sessionCookieName }) as any;

const DEVELOPMENT = { NODE_ENV: "development" };
const PRODUCTION = { NODE_ENV: "production", GRPC_INSECURE: "true" };
const document = documentOf(DEVELOPMENT, true);
const operationCount = Object.values(document.paths as Record<string, object>).reduce((sum, methods) => sum + Object.keys(methods).length, 0);

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is refused by the same validator when it breaks the specification", async () => {
    const broken = structuredClone(document);
    broken.paths["/ok"].get.responses = { "200": { content: {} } }; // a Response Object needs a description
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("holds only valid JSON Schema 2020-12 for bodies, parameters and responses", () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true });
    addFormats(ajv);
    const schemas: unknown[] = [];
    const collect = (value: unknown, key?: string) => {
      if (key === "schema") schemas.push(value);
      else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) collect(v, k);
    };
    collect(document.paths);
    collect(document.components.responses);
    expect(schemas.length).toBeGreaterThan(operationCount);
    for (const schema of schemas) expect(() => ajv.compile(schema as object)).not.toThrow();
  });

  it("names every express route, and no route the app does not serve", () => {
    const inDocument = (env: Record<string, string>, withDevMailbox: boolean) =>
      Object.entries(documentOf(env, withDevMailbox, "s").paths as Record<string, object>)
        .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path.replace(/\{(\w+)\}/g, ":$1")}`))
        .sort();
    expect(inDocument(DEVELOPMENT, true)).toEqual(appRoutes(DEVELOPMENT));
    expect(inDocument(PRODUCTION, false)).toEqual(appRoutes(PRODUCTION));
    expect(inDocument(PRODUCTION, false)).not.toContain("get /dev/outbox");
  });

  it("declares every error status with the catalogue's { code, message } body", () => {
    const error401 = document.components.responses.Error401.content["application/json"].schema;
    expect(error401.required).toEqual(["code", "message"]);
    expect(error401.properties.code.enum).toContain("INVALID_EMAIL_OR_PASSWORD");
    expect(document.paths["/sign-in/email"].post.responses["401"]).toMatchObject({ $ref: "#/components/responses/Error401" });
    expect(document.paths["/sign-out"].post.responses["401"]).toBeUndefined();
    expect(document.paths["/sign-up/email"].post.requestBody.content["application/json"].schema.required).toEqual(["name", "email", "password"]);
  });

  it("lists each route's declared catalogue errors with the route", () => {
    const signUp = document.paths["/sign-up/email"].post;
    expect(signUp["x-error-codes"]).toContain("USER_ALREADY_EXISTS");
    expect(signUp.responses["422"]).toEqual({
      $ref: "#/components/responses/Error422",
      description: "Error (422): USER_ALREADY_EXISTS (User already exists), USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER (username is already taken. please try another.)",
    });
    expect(signUp.responses["400"].description).toContain("PASSWORD_TOO_SHORT (Password too short)");
    // A status the route declares no code for points at the shared response alone.
    expect(signUp.responses["429"]).toEqual({ $ref: "#/components/responses/Error429" });
  });

  it("declares when a refused client may come back: X-Retry-After and Retry-After on 429, Retry-After on 503", () => {
    expect(Object.keys(document.components.responses.Error429.headers)).toEqual(["X-Retry-After", "Retry-After"]);
    expect(Object.keys(document.components.responses.Error503.headers)).toEqual(["Retry-After"]);
    expect(document.components.responses.Error400.headers).toBeUndefined();
  });
});
