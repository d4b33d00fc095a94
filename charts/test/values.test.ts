// The chart with values overridden: autoscaling, an existing secret, custom configuration, disabled
// services, SMTP, database URLs, rate-limit counters in PostgreSQL, client IP settings, and the values it refuses.
import { gatewayConfig } from "../../gateway/src/config.js";
import { identityConfig } from "../../services/identity/src/config.js";
import { notificationConfig } from "../../services/notification/src/config.js";
import { organizationConfig } from "../../services/organization/src/config.js";
import { describe, expect, it } from "vitest";
import { parseObjects, RELEASE, renderText as renderValuesText } from "../render.js";
import {
  COMPONENTS,
  NAMES,
  WITH_WEB,
  GRPC,
  REQUIRED,
  SECRET_KEYS,
  merge,
  render,
  renderText,
  podEnv,
  envOf,
  ofKind,
  componentOf,
  one,
  single,
  containerOf,
  componentEnv,
  decoded,
  expectSchemaValid,
} from "./helpers.js";

describe("with autoscaling and PDBs disabled, an existing secret and custom configuration", () => {
  const sentinels = {
    authSecret: "sentinel-auth-secret-0123456789abcdefghijkl",
    redis: "redis://:sentinel-redis-password@redis:6379",
    password: "sentinel-pg-password",
    smtp: "smtps://user:sentinel-smtp-password@smtp.example.com:465",
  };
  const components = Object.fromEntries(WITH_WEB.map((name) => [name, { replicaCount: 3, autoscaling: { enabled: false }, pdb: { enabled: false } }]));
  const values = {
    ...components,
    secret: { existingSecret: "auth-env", authSecret: sentinels.authSecret },
    redis: { url: sentinels.redis },
    smtp: { url: sentinels.smtp },
    postgresql: { password: sentinels.password },
    config: {
      basePath: "/auth",
      baseUrl: "https://auth.example.com/",
      appUrl: "https://app.example.com",
      trustedOrigins: ["https://app.example.com", "https://admin.example.com"],
      rateLimit: { rules: { "/sign-in": { window: 60, max: 5 } } },
      identity: {
        emailVerification: { required: true, autoSignInAfterVerification: true, tokenExpiresIn: 7200 },
        resetPassword: { enabled: false, revokeSessions: true },
        changeEmail: { enabled: false },
        deleteUser: { verification: false },
        defaultRole: "member",
        passkeys: { rpId: "example.com", rpName: "Acme", origins: ["https://app.example.com", "https://auth.example.com"] },
      },
      admin: { assignableRoles: ["editor", "member"] },
      session: { expiresIn: 2592000, freshAge: 0, cacheStaleServeSeconds: 120, jwt: { algorithm: "ES256", expiresIn: 300 } },
      notification: { appName: "Acme, Inc.", mailFrom: "Acme <no-reply@acme.example>", maxAttempts: 5, retryMaxMs: 600000 },
      organization: {
        allowCreation: false,
        limit: 5,
        deleteEnabled: false,
        invitationExpiresIn: 3600,
        invitationLimit: 25,
        roles: { owner: { organization: ["update", "delete"] }, member: {} },
      },
    },
    clusterDomain: "k8s.example.internal",
  };
  const text = renderText(values);
  const objects = render(values);
  const env = single(objects, "ConfigMap").data as Record<string, string>;

  it("renders objects that match the Kubernetes schemas", () => {
    expectSchemaValid(objects);
  });

  it("renders no HPA and no PDB, and fixes the replica count", () => {
    expect(ofKind(objects, "HorizontalPodAutoscaler")).toEqual([]);
    expect(ofKind(objects, "PodDisruptionBudget")).toEqual([]);
    for (const name of NAMES) expect(one(objects, "Deployment", name).spec.replicas).toBe(3);
  });

  it("creates no Secret and reads the existing one", () => {
    expect(ofKind(objects, "Secret")).toEqual([]);
    for (const name of NAMES) {
      const refs = [...envOf(containerOf(one(objects, "Deployment", name))).values()].flatMap((e) => e.valueFrom?.secretKeyRef ?? []);
      expect(refs.map((ref) => ref.key).sort()).toEqual(Object.keys(SECRET_KEYS[name]).sort());
      for (const ref of refs) expect(ref.name).toBe("auth-env");
    }
  });

  it("writes no secret value anywhere", () => {
    for (const value of Object.values(sentinels)) expect(text).not.toContain(value);
    expect(text).not.toContain(Buffer.from(sentinels.authSecret).toString("base64"));
  });

  it("passes the configuration through, numbers as integers", () => {
    expect(env).toMatchObject({
      AUTH_BASE_PATH: "/auth",
      AUTH_BASE_URL: "https://auth.example.com/auth",
      AUTH_APP_URL: "https://app.example.com",
      AUTH_TRUSTED_ORIGINS: "https://app.example.com,https://admin.example.com",
      IDENTITY_PASSKEY_RP_ID: "example.com",
      IDENTITY_PASSKEY_RP_NAME: "Acme",
      IDENTITY_PASSKEY_ORIGINS: "https://app.example.com,https://auth.example.com",
      SESSION_EXPIRES_IN: "2592000",
      SESSION_FRESH_AGE: "0",
      SESSION_CACHE_STALE_SERVE_SECONDS: "120",
      SESSION_JWT_ALGORITHM: "ES256",
      GATEWAY_SESSION_JWT_HEADER: "false",
      SESSION_JWT_EXPIRES_IN: "300",
      SESSION_JWT_AUDIENCE: "",
      SESSION_JWT_ROTATION_SECONDS: "2592000",
      SESSION_JWKS_MAX_AGE: "300",
      APP_NAME: "Acme, Inc.",
      MAIL_FROM: "Acme <no-reply@acme.example>",
      NOTIFICATION_MAX_ATTEMPTS: "5",
      NOTIFICATION_RETRY_MAX_MS: "600000",
    });
    expect(JSON.parse(env.RATE_LIMIT_RULES ?? "")).toEqual({ "/sign-in": { window: 60, max: 5 } });
  });

  it("lets admins give back the role new users get: identity.defaultRole joins admin.assignableRoles", () => {
    expect(env).toMatchObject({ IDENTITY_DEFAULT_ROLE: "member", ADMIN_ASSIGNABLE_ROLES: "editor,member" });
    const other = single(render({ ...values, config: { ...values.config, admin: { assignableRoles: ["editor"] } } }), "ConfigMap").data as Record<string, string>;
    expect(other.ADMIN_ASSIGNABLE_ROLES).toBe("editor,member");
    const defaults = single(render({}), "ConfigMap").data as Record<string, string>;
    expect(defaults.ADMIN_ASSIGNABLE_ROLES).toBe("user");
  });

  it("gives identity and notification the configured lifecycle and mail settings", () => {
    const environment = podEnv(env, { AUTH_SECRET: sentinels.authSecret });
    expect(identityConfig(environment)).toMatchObject({
      baseUrl: "https://auth.example.com/auth",
      freshAgeSeconds: 0,
      emailVerification: { enabled: true, sendOnSignUp: true, required: true, autoSignIn: true, expiresInSeconds: 7200 },
      resetPassword: { enabled: false, expiresInSeconds: 3600, revokeSessions: true },
      changeEmailEnabled: false,
      deleteUser: { enabled: true, verification: false },
    });
    expect(notificationConfig(environment)).toMatchObject({
      appName: "Acme, Inc.",
      mailFrom: "Acme <no-reply@acme.example>",
      mailDomain: "acme.example",
      footerUrl: "https://app.example.com",
      maxAttempts: 5,
      retryMaxMs: 600000,
    });
    expect(gatewayConfig(environment)).toMatchObject({ appUrl: "https://app.example.com", baseUrl: "https://auth.example.com/auth" });
    expect(organizationConfig(environment)).toMatchObject({
      appUrl: "https://app.example.com",
      allowCreation: false,
      organizationLimit: 5,
      deleteEnabled: false,
      invitationExpiresInSeconds: 3600,
      invitationLimit: 25,
      roles: { owner: { organization: ["update", "delete"] }, member: {} },
    });
  });

  it("addresses the gRPC Services in the configured cluster domain", () => {
    for (const name of GRPC) {
      const service = one(objects, "Service", name);
      expect(env[COMPONENTS[name].urlEnv as string]).toBe(`dns:///${service.metadata.name}.${RELEASE.namespace}.svc.k8s.example.internal:${COMPONENTS[name].port}`);
    }
  });

  it("probes the gateway under the configured base path", () => {
    const container = containerOf(one(objects, "Deployment", "gateway"));
    expect(container.livenessProbe.httpGet.path).toBe("/auth/ok");
    expect(container.readinessProbe.httpGet.path).toBe("/auth/ok");
  });
});

describe("with the notification service disabled", () => {
  const objects = render({ notification: { enabled: false } });

  it("renders nothing for it and leaves its variables unset", () => {
    expectSchemaValid(objects);
    expect(objects.filter((o) => componentOf(o) === "notification")).toEqual([]);
    const env = single(objects, "ConfigMap").data as Record<string, string>;
    for (const name of ["NOTIFICATION_SERVICE_URL", "NOTIFICATION_PORT", "APP_NAME", "NOTIFICATION_MAX_ATTEMPTS"]) expect(env).not.toHaveProperty(name);
    expect(single(objects, "Secret").data).not.toHaveProperty("NOTIFICATION_DATABASE_URL");
  });
});

describe("with SMTP configured and a gRPC Service not headless", () => {
  const objects = render({ smtp: { url: "smtps://mailer:smtp-password@smtp.example.com:465" }, session: { service: { headless: false } } });
  const env = single(objects, "ConfigMap").data as Record<string, string>;
  const secret = single(objects, "Secret").data as Record<string, string>;

  it("keeps SMTP_URL in the Secret only", () => {
    expectSchemaValid(objects);
    expect(Buffer.from(secret.SMTP_URL ?? "", "base64").toString()).toBe("smtps://mailer:smtp-password@smtp.example.com:465");
    expect(env).not.toHaveProperty("SMTP_URL");
    expect(JSON.stringify(env)).not.toContain("smtp-password");
  });

  it("renders the Service with a virtual IP and still addresses it by DNS", () => {
    const service = one(objects, "Service", "session");
    expect(service.spec).not.toHaveProperty("clusterIP");
    expect(env.SESSION_SERVICE_URL).toBe(`dns:///${service.metadata.name}.${RELEASE.namespace}.svc.cluster.local:50052`);
    expect(one(objects, "Service", "identity").spec.clusterIP).toBe("None");
  });
});

describe("with database URLs given in full or built from parts", () => {
  it("percent-encodes the PostgreSQL user and password and keeps a full URL as given", () => {
    const objects = render({
      postgresql: { username: "auth user", password: "p@ss:w/rd+x", params: "sslmode=require" },
      session: { database: { url: "postgres://session:pw@sessions-db:5432/sessions" } },
    });
    const data = single(objects, "Secret").data as Record<string, string>;
    const decode = (key: string) => Buffer.from(data[key] ?? "", "base64").toString();
    expect(decode("IDENTITY_DATABASE_URL")).toBe("postgres://auth%20user:p%40ss%3Aw%2Frd%2Bx@postgresql:5432/identity?sslmode=require");
    expect(new URL(decode("IDENTITY_DATABASE_URL")).password).toBe("p%40ss%3Aw%2Frd%2Bx");
    expect(decodeURIComponent(new URL(decode("IDENTITY_DATABASE_URL")).password)).toBe("p@ss:w/rd+x");
    expect(decode("SESSION_DATABASE_URL")).toBe("postgres://session:pw@sessions-db:5432/sessions");
  });
});

describe("with the rate-limit counters in PostgreSQL (config.rateLimit.storage database)", () => {
  const ONE_SESSION = { session: { autoscaling: { enabled: false }, replicaCount: 1 } };
  const withoutRedis = merge({ config: REQUIRED.config, tls: REQUIRED.tls }, ONE_SESSION);
  const values = merge(withoutRedis, { config: { rateLimit: { storage: "database" } }, postgresql: { password: "p@ss" } });
  const objects = parseObjects(renderValuesText(values));
  const env = single(objects, "ConfigMap").data as Record<string, string>;
  const secretEnv = decoded(single(objects, "Secret"));

  it("renders objects that match the Kubernetes schemas", () => {
    expectSchemaValid(objects);
  });

  it("gives the gateway alone RATE_LIMIT_DATABASE_URL, on the gateway database of the postgresql block, and the gateway accepts it", () => {
    expect(env.RATE_LIMIT_STORAGE).toBe("database");
    expect(secretEnv.RATE_LIMIT_DATABASE_URL).toBe("postgres://auth:p%40ss@postgresql:5432/gateway");
    for (const name of NAMES) {
      const ref = envOf(containerOf(one(objects, "Deployment", name))).get("RATE_LIMIT_DATABASE_URL")?.valueFrom?.secretKeyRef;
      if (name === "gateway") expect(ref).toEqual({ name: expect.any(String), key: "RATE_LIMIT_DATABASE_URL" });
      else expect(ref, name).toBeUndefined();
    }
    const gateway = gatewayConfig({ ...componentEnv(one(objects, "Deployment", "gateway"), env, secretEnv), GRPC_TLS_DIR: "/etc/auth-platform/tls" });
    expect(gateway.rateLimit).toMatchObject({ storage: "database", databaseUrl: "postgres://auth:p%40ss@postgresql:5432/gateway" });
    expect(gateway.redis).toBeUndefined();
  });

  it("takes gateway.database.url as given, and requires the key of an existing Secret", () => {
    const url = "postgres://gw:pw@counters-db:5432/counters";
    expect(decoded(single(render(merge(values, { gateway: { database: { url } } })), "Secret")).RATE_LIMIT_DATABASE_URL).toBe(url);
    const existing = render(merge(values, { secret: { existingSecret: "auth-env" } }));
    const ref = envOf(containerOf(one(existing, "Deployment", "gateway"))).get("RATE_LIMIT_DATABASE_URL")?.valueFrom?.secretKeyRef;
    expect(ref).toEqual({ name: "auth-env", key: "RATE_LIMIT_DATABASE_URL" });
  });

  it("leaves both variables out by default: the gateway counts in Redis when there is one", () => {
    const defaults = render();
    expect(single(defaults, "ConfigMap").data).not.toHaveProperty("RATE_LIMIT_STORAGE");
    expect(decoded(single(defaults, "Secret"))).not.toHaveProperty("RATE_LIMIT_DATABASE_URL");
  });

  it("refuses the redis storage without Redis, and a storage the gateway does not know", () => {
    expect(() => renderValuesText(merge(withoutRedis, { config: { rateLimit: { storage: "redis" } } }))).toThrow(
      /config\.rateLimit\.storage redis needs redis\.url \(or REDIS_URL in secret\.existingSecret\)/,
    );
    expect(() => renderValuesText(merge(withoutRedis, { config: { rateLimit: { storage: "redis" } }, secret: { existingSecret: "auth-env" } }))).not.toThrow();
    expect(() => renderText({ config: { rateLimit: { storage: "postgres" } } })).toThrow(/config\.rateLimit\.storage/);
  });
});

describe("client IP settings", () => {
  it("leaves AUTH_TRUSTED_PROXIES and AUTH_CLIENT_IP_HEADERS to the process defaults", () => {
    const env = single(render(), "ConfigMap").data as Record<string, string>;
    expect(env).not.toHaveProperty("AUTH_TRUSTED_PROXIES");
    expect(env).not.toHaveProperty("AUTH_CLIENT_IP_HEADERS");
  });

  it("passes the configured proxies and single-value headers through", () => {
    const env = single(render({ config: { trustedProxies: ["10.42.0.0/16", "fd00::/8"], clientIpHeaders: ["CF-Connecting-IP", "x-real-ip"] } }), "ConfigMap").data as Record<
      string,
      string
    >;
    expect(env.AUTH_TRUSTED_PROXIES).toBe("10.42.0.0/16,fd00::/8");
    expect(env.AUTH_CLIENT_IP_HEADERS).toBe("cf-connecting-ip,x-real-ip");
  });

  // Regression: a LoadBalancer or NodePort Service with kube-proxy's default policy (Cluster) hands the
  // gateway (or the web app, which appends its peer) a node's private address as the peer. That address
  // is a trusted proxy by default, so each client's own X-Forwarded-For chose its rate-limit key: unlimited
  // sign-in attempts, and any victim's address could be locked out.
  it("keeps the client's address as the source of an outside gateway or web Service", () => {
    for (const type of ["LoadBalancer", "NodePort"]) {
      const objects = render({ gateway: { service: { type } }, web: { service: { type } } });
      expectSchemaValid(objects);
      for (const component of ["gateway", "web"] as const) {
        expect(one(objects, "Service", component).spec).toMatchObject({ type, externalTrafficPolicy: "Local" });
      }
    }
    const chosen = render({ gateway: { service: { type: "LoadBalancer", externalTrafficPolicy: "Cluster" } } });
    expect(one(chosen, "Service", "gateway").spec.externalTrafficPolicy).toBe("Cluster");
    // A ClusterIP Service takes no such field.
    expect(one(render(), "Service", "gateway").spec).not.toHaveProperty("externalTrafficPolicy");
  });
});

describe("invalid values", () => {
  it.each([
    ["a short AUTH_SECRET", { secret: { authSecret: "too-short" } }, /authSecret/],
    ["an unknown key", { config: { baseURL: "https://auth.example.com" } }, /baseURL/],
    ["a PDB with neither bound", { gateway: { pdb: { maxUnavailable: null } } }, /gateway\.pdb/],
    ["an HPA without a target", { identity: { autoscaling: { targetCPUUtilizationPercentage: null } } }, /identity\.autoscaling/],
    ["a non-PostgreSQL database URL", { identity: { database: { url: "file:data/identity.db" } } }, /identity\.database\.url/],
    [
      "a base URL with the base path already in it",
      { config: { baseUrl: "https://auth.example.com/api/auth" } },
      /config\.baseUrl \(https:\/\/auth\.example\.com\/api\/auth\) must not end with config\.basePath/,
    ],
    ["a base URL that is not http(s)", { config: { baseUrl: "auth.example.com" } }, /config\.baseUrl/],
    ["the root as base path beside the web app", { config: { basePath: "/" } }, /config\.basePath must not be \/ while web\.enabled/],
    ["a headless Service of type LoadBalancer", { identity: { service: { type: "LoadBalancer" } } }, /identity\.service\.headless needs service\.type ClusterIP/],
    ["an unknown traffic policy", { gateway: { service: { type: "LoadBalancer", externalTrafficPolicy: "Nearest" } } }, /externalTrafficPolicy/],
    ["a MAIL_FROM without an address", { config: { notification: { mailFrom: "Acme" } } }, /mailFrom/],
    ["a health port equal to a service's port", { probes: { grpcHealthPort: 50052 } }, /probes\.grpcHealthPort \(50052\) must differ from session\.port/],
    ["mTLS by cert-manager without an issuer", { tls: { certManager: { issuerRef: { name: "" } } } }, /tls\.certManager\.issuerRef\.name is required/],
    [
      "own TLS Secrets with one missing",
      { tls: { certManager: { enabled: false }, existingSecrets: { gateway: "gw", identity: "id", session: "se", oauth: "oa", organization: "or", admin: "ad", sso: "ss" } } },
      /tls\.existingSecrets\.notification is required/,
    ],
    [
      "the internal-client certificate without cert-manager",
      {
        tls: {
          certManager: { enabled: false },
          existingSecrets: { gateway: "gw", identity: "id", session: "se", notification: "no", oauth: "oa", organization: "or", admin: "ad", sso: "ss" },
          internalClient: { enabled: true },
        },
      },
      /tls\.internalClient\.enabled needs tls\.enabled and tls\.certManager\.enabled/,
    ],
    ["a TLS Secret name that is not a name", { tls: { certManager: { enabled: false }, existingSecrets: { gateway: "Gateway_TLS" } } }, /existingSecrets\.gateway/],
    ["tls.enabled as a string", { tls: { enabled: "false" } }, /tls\.enabled/],
    ["a certificate lifetime that is not a Go duration", { tls: { certManager: { duration: "90d" } } }, /tls\.certManager\.duration/],
    ["an ECDSA key of an RSA size", { tls: { certManager: { privateKey: { size: 2048 } } } }, /tls\.certManager\.privateKey\.size/],
    ["a NetworkPolicy peer with an unknown field", { networkPolicy: { gateway: { from: [{ namespace: "ingress-nginx" }] } } }, /networkPolicy\.gateway\.from/],
    ["an egress rule with a lower-case protocol", { networkPolicy: { egress: { extraRules: [{ ports: [{ port: 5432, protocol: "tcp" }] }] } } }, /protocol/],
    [
      "a component's egress rule with a lower-case protocol",
      { networkPolicy: { egress: { componentRules: { session: [{ ports: [{ port: 5432, protocol: "tcp" }] }] } } } },
      /protocol/,
    ],
    [
      "egress rules for a component the chart does not have",
      { networkPolicy: { egress: { componentRules: { database: [{ ports: [{ port: 5432 }] }] } } } },
      /componentRules|database|additional/,
    ],
    ["X-Forwarded-For named as a single-value header", { config: { clientIpHeaders: ["X-Forwarded-For"] } }, /config\.clientIpHeaders/],
    ["two client-IP headers in one item", { config: { clientIpHeaders: ["cf-connecting-ip,x-real-ip"] } }, /config\.clientIpHeaders/],
  ])("refuses %s", (_, values, message) => {
    expect(() => renderText(values)).toThrow(message);
  });

  it("refuses to render without config.baseUrl, saying what it is for", () => {
    expect(() => renderValuesText({ redis: REQUIRED.redis, tls: REQUIRED.tls })).toThrow(
      /config\.baseUrl is required: the public URL of the gateway without the base path, e\.g\. --set config\.baseUrl=https:\/\/auth\.example\.com\. Identity builds the links in verification, password-reset and delete-account mails from it/,
    );
    expect(() => renderValuesText({ config: { baseUrl: "" }, redis: REQUIRED.redis, tls: REQUIRED.tls })).toThrow(/config\.baseUrl is required/);
  });

  it("refuses several session replicas without Redis (a revoked session would stay valid on the others)", () => {
    const withoutRedis = { config: REQUIRED.config, tls: REQUIRED.tls };
    expect(() => renderValuesText(withoutRedis)).toThrow(/redis\.url is required when the session service runs more than one replica/);
    expect(() => renderValuesText(merge(withoutRedis, { session: { autoscaling: { enabled: false }, replicaCount: 2 } }))).toThrow(/redis\.url is required/);
    // One replica, or Redis from an existing Secret, renders.
    expect(() => renderValuesText(merge(withoutRedis, { session: { autoscaling: { enabled: false }, replicaCount: 1 } }))).not.toThrow();
    expect(() => renderValuesText(merge(withoutRedis, { secret: { existingSecret: "auth-secrets" } }))).not.toThrow();
  });
});
