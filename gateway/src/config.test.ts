import { describe, expect, it } from "vitest";
import { DEFAULT_TRUSTED_PROXIES } from "./http/client-ip.js";
import { sessionConfig } from "../../services/session/src/config.js";
import { gatewayConfig } from "./config.js";

const SECRET = { AUTH_SECRET: "test-secret-0123456789-0123456789-0123456789" };

describe("gatewayConfig: bind address, request bounds and client IP", () => {
  it("binds 0.0.0.0 unless HOST says otherwise", () => {
    expect(gatewayConfig(SECRET).host).toBe("0.0.0.0");
    expect(gatewayConfig({ ...SECRET, HOST: "127.0.0.1" }).host).toBe("127.0.0.1");
    expect(gatewayConfig({ ...SECRET, HOST: "::1" }).host).toBe("::1");
    expect(() => gatewayConfig({ ...SECRET, HOST: "" })).toThrow(/HOST/);
  });

  it("bounds a request to 30 s and its headers to 10 s by default; headers never longer than the request", () => {
    expect(gatewayConfig(SECRET).timeouts).toEqual({ requestMs: 30_000, headersMs: 10_000 });
    expect(gatewayConfig({ ...SECRET, GATEWAY_REQUEST_TIMEOUT_MS: "2000", GATEWAY_HEADERS_TIMEOUT_MS: "500" }).timeouts).toEqual({ requestMs: 2_000, headersMs: 500 });
    expect(gatewayConfig({ ...SECRET, GATEWAY_REQUEST_TIMEOUT_MS: "2000" }).timeouts).toEqual({ requestMs: 2_000, headersMs: 2_000 });
    expect(() => gatewayConfig({ ...SECRET, GATEWAY_REQUEST_TIMEOUT_MS: "0" })).toThrow(/GATEWAY_REQUEST_TIMEOUT_MS/);
    expect(() => gatewayConfig({ ...SECRET, GATEWAY_HEADERS_TIMEOUT_MS: "soon" })).toThrow(/GATEWAY_HEADERS_TIMEOUT_MS/);
  });

  it("trusts loopback and private proxies when AUTH_TRUSTED_PROXIES is unset, none when it is empty", () => {
    expect(gatewayConfig(SECRET).trustedProxies).toEqual(DEFAULT_TRUSTED_PROXIES);
    expect(DEFAULT_TRUSTED_PROXIES).toEqual(expect.arrayContaining(["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]));
    expect(gatewayConfig({ ...SECRET, AUTH_TRUSTED_PROXIES: "" }).trustedProxies).toEqual([]);
    expect(gatewayConfig({ ...SECRET, AUTH_TRUSTED_PROXIES: " 10.1.0.0/16 , 2001:db8::1" }).trustedProxies).toEqual(["10.1.0.0/16", "2001:db8::1"]);
    expect(() => gatewayConfig({ ...SECRET, AUTH_TRUSTED_PROXIES: "10.0.0.0/8,ingress.local" })).toThrow(/AUTH_TRUSTED_PROXIES: not an IP or CIDR: ingress.local/);
  });

  it("reads no single-value client-IP header unless AUTH_CLIENT_IP_HEADERS names it", () => {
    expect(gatewayConfig(SECRET).clientIpHeaders).toEqual([]);
    expect(gatewayConfig({ ...SECRET, AUTH_CLIENT_IP_HEADERS: "CF-Connecting-IP, x-real-ip" }).clientIpHeaders).toEqual(["CF-Connecting-IP", "x-real-ip"]);
    expect(() => gatewayConfig({ ...SECRET, AUTH_CLIENT_IP_HEADERS: "x-real-ip,bad header" })).toThrow(/AUTH_CLIENT_IP_HEADERS/);
  });
});

describe("gatewayConfig and sessionConfig: Redis credentials and TLS", () => {
  // Both processes read the shared cache: each reads the same settings through its own config loader.
  const loaders = { gateway: gatewayConfig, session: sessionConfig };

  it.each(Object.keys(loaders) as Array<keyof typeof loaders>)("%s reads REDIS_URL, REDIS_USERNAME and REDIS_PASSWORD, and refuses what cannot work", (name) => {
    const load = loaders[name];
    expect(load(SECRET).redis).toBeUndefined();
    expect(load({ ...SECRET, REDIS_URL: "rediss://redis:6380", REDIS_USERNAME: "auth", REDIS_PASSWORD: "pw" }).redis).toEqual({
      url: "rediss://redis:6380",
      username: "auth",
      password: "pw",
    });
    expect(() => load({ ...SECRET, REDIS_URL: "https://redis:6380" })).toThrow(/REDIS_URL: must start with redis:\/\/ or rediss:\/\//);
    expect(() => load({ ...SECRET, REDIS_URL: "redis://redis:6379", REDIS_TLS_CA_FILE: "/etc/redis/ca.crt" })).toThrow(/REDIS_TLS_CA_FILE: only with a rediss:\/\//);
    expect(load({ ...SECRET, NODE_ENV: "production", GRPC_INSECURE: "true" }).production).toBe(true);
  });
});

describe("gatewayConfig: where the rate-limit counters live", () => {
  const REDIS = { REDIS_URL: "redis://127.0.0.1:6379" };
  const DATABASE = { RATE_LIMIT_STORAGE: "database", RATE_LIMIT_DATABASE_URL: "postgres://auth:pw@db:5432/gateway" };

  it("keeps them in Redis when REDIS_URL is set, else in process memory, unless RATE_LIMIT_STORAGE says otherwise", () => {
    expect(gatewayConfig(SECRET).rateLimit.storage).toBe("memory");
    expect(gatewayConfig({ ...SECRET, ...REDIS }).rateLimit.storage).toBe("redis");
    expect(gatewayConfig({ ...SECRET, ...REDIS, RATE_LIMIT_STORAGE: "memory" }).rateLimit.storage).toBe("memory");
    expect(gatewayConfig({ ...SECRET, RATE_LIMIT_STORAGE: "" }).rateLimit.storage).toBe("memory");
    expect(gatewayConfig({ ...SECRET, ...DATABASE }).rateLimit).toMatchObject({ storage: "database", databaseUrl: DATABASE.RATE_LIMIT_DATABASE_URL });
    expect(gatewayConfig({ ...SECRET, ...REDIS, ...DATABASE }).rateLimit.storage).toBe("database");
  });

  it("refuses a storage it cannot use, each with what to set", () => {
    expect(() => gatewayConfig({ ...SECRET, RATE_LIMIT_STORAGE: "database" })).toThrow(
      /RATE_LIMIT_DATABASE_URL: required with RATE_LIMIT_STORAGE=database \(a postgres:\/\/ URL\)/,
    );
    expect(() => gatewayConfig({ ...SECRET, RATE_LIMIT_STORAGE: "redis" })).toThrow(/RATE_LIMIT_STORAGE: redis needs REDIS_URL/);
    expect(() => gatewayConfig({ ...SECRET, RATE_LIMIT_STORAGE: "postgres" })).toThrow(/RATE_LIMIT_STORAGE: .*"memory"\|"redis"\|"database"/);
    expect(() => gatewayConfig({ ...SECRET, ...DATABASE, RATE_LIMIT_DATABASE_URL: "file:data/gateway.db" })).toThrow(
      /RATE_LIMIT_DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/,
    );
    // A URL without the storage that reads it is a forgotten setting, not a choice.
    expect(() => gatewayConfig({ ...SECRET, ...REDIS, RATE_LIMIT_DATABASE_URL: DATABASE.RATE_LIMIT_DATABASE_URL })).toThrow(
      /RATE_LIMIT_DATABASE_URL: only with RATE_LIMIT_STORAGE=database \(the counters are in redis\)/,
    );
  });
});
