/**
 * The Redis settings (REDIS_URL or REDIS_CLUSTER_NODES or REDIS_SENTINELS with REDIS_SENTINEL_NAME, REDIS_TLS,
 * REDIS_USERNAME, REDIS_PASSWORD, REDIS_TLS_CA_FILE): what the config loaders
 * accept and refuse, and, on a redis-server of the test's own with TLS and an ACL user, that the cache's
 * client signs in over TLS with them and is refused without them.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueCertificateAuthority, issueWorkloadCertificate } from "../../../deploy/dev-certs.js";
import { REDIS_SERVER_INSTALLED, startRedisServer, type TestRedisServer } from "../../../testing/redis-server.js";
import { ConfigError } from "./config.js";
import { createRedisKeyValue } from "./redis-key-value.js";
import { createLogger } from "./log.js";
import { redisFromEnv, redisWarnings } from "./redis-connection.js";

const dir = mkdtempSync(join(tmpdir(), "auth-redis-connection-"));
const caFile = join(dir, "ca.crt");
writeFileSync(caFile, "-----BEGIN CERTIFICATE-----\n");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Redis settings", () => {
  it("none without REDIS_URL; a redis:// or rediss:// URL as given", () => {
    expect(redisFromEnv({})).toBeUndefined();
    expect(redisFromEnv({ REDIS_URL: "" })).toBeUndefined();
    expect(redisFromEnv({ REDIS_URL: "redis://redis:6379/0" })).toEqual({ url: "redis://redis:6379/0" });
    expect(redisFromEnv({ REDIS_URL: "rediss://auth:pw@redis.example.com:6380" })).toEqual({ url: "rediss://auth:pw@redis.example.com:6380" });
  });

  it("takes the ACL user and password apart from the URL (from a Secret), and the CA of a rediss:// server", () => {
    expect(redisFromEnv({ REDIS_URL: "rediss://redis:6380", REDIS_USERNAME: "auth", REDIS_PASSWORD: "pw", REDIS_TLS_CA_FILE: caFile })).toEqual({
      url: "rediss://redis:6380",
      username: "auth",
      password: "pw",
      ca: "-----BEGIN CERTIFICATE-----\n",
    });
    expect(redisFromEnv({ REDIS_URL: "redis://redis:6379", REDIS_PASSWORD: "pw" })).toEqual({ url: "redis://redis:6379", password: "pw" });
  });

  it("a cluster from its nodes, or a primary from its sentinels and name, with TLS and credentials", () => {
    expect(redisFromEnv({ REDIS_CLUSTER_NODES: "redis-0:6379, redis-1:6379,10.0.0.7:7000" })).toEqual({
      cluster: [
        { host: "redis-0", port: 6379 },
        { host: "redis-1", port: 6379 },
        { host: "10.0.0.7", port: 7000 },
      ],
    });
    expect(redisFromEnv({ REDIS_SENTINELS: "s-0:26379,[::1]:26380", REDIS_SENTINEL_NAME: "auth", REDIS_TLS: "true", REDIS_PASSWORD: "pw", REDIS_TLS_CA_FILE: caFile })).toEqual({
      sentinel: {
        nodes: [
          { host: "s-0", port: 26379 },
          { host: "::1", port: 26380 },
        ],
        name: "auth",
      },
      tls: true,
      password: "pw",
      ca: "-----BEGIN CERTIFICATE-----\n",
    });
  });

  it("refuses, naming the variable: two topologies, a sentinel without its primary's name, a node that is no host:port, REDIS_TLS beside a URL", () => {
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ REDIS_URL: "redis://redis:6379", REDIS_CLUSTER_NODES: "redis-0:6379" }, /REDIS_URL, REDIS_CLUSTER_NODES: set one of them/],
      [{ REDIS_CLUSTER_NODES: "redis-0:6379", REDIS_SENTINELS: "s-0:26379", REDIS_SENTINEL_NAME: "auth" }, /REDIS_CLUSTER_NODES, REDIS_SENTINELS: set one of them/],
      [{ REDIS_SENTINELS: "s-0:26379" }, /REDIS_SENTINEL_NAME: required with REDIS_SENTINELS/],
      [{ REDIS_CLUSTER_NODES: "redis-0:6379", REDIS_SENTINEL_NAME: "auth" }, /REDIS_SENTINEL_NAME: only with REDIS_SENTINELS/],
      [{ REDIS_CLUSTER_NODES: "redis-0" }, /REDIS_CLUSTER_NODES: expected host:port/],
      [{ REDIS_SENTINELS: "s-0:99999", REDIS_SENTINEL_NAME: "auth" }, /REDIS_SENTINELS: expected host:port/],
      [{ REDIS_URL: "rediss://redis:6380", REDIS_TLS: "true" }, /REDIS_TLS: with REDIS_URL, TLS is said by rediss:\/\//],
      [{ REDIS_CLUSTER_NODES: "redis-0:6379", REDIS_TLS_CA_FILE: caFile }, /REDIS_TLS_CA_FILE: only with REDIS_TLS=true/],
      [{ REDIS_TLS: "true" }, /REDIS_TLS: set without REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS/],
    ];
    for (const [source, message] of refused) {
      expect(() => redisFromEnv(source), JSON.stringify(source)).toThrow(ConfigError);
      expect(() => redisFromEnv(source), JSON.stringify(source)).toThrow(message);
    }
  });

  it("refuses, naming the variable: another scheme, credentials in two places, a user without password, a CA without TLS or unreadable, settings without REDIS_URL", () => {
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ REDIS_URL: "http://redis:6379" }, /REDIS_URL: must start with redis:\/\/ or rediss:\/\//],
      [{ REDIS_URL: "not a url" }, /REDIS_URL/],
      [{ REDIS_URL: "redis://:pw@redis:6379", REDIS_PASSWORD: "other" }, /REDIS_USERNAME \/ REDIS_PASSWORD: the URL already holds credentials/],
      [{ REDIS_URL: "redis://redis:6379", REDIS_USERNAME: "auth" }, /REDIS_PASSWORD: required with REDIS_USERNAME/],
      [{ REDIS_URL: "redis://redis:6379", REDIS_TLS_CA_FILE: caFile }, /REDIS_TLS_CA_FILE: only with a rediss:\/\/ REDIS_URL/],
      [{ REDIS_URL: "rediss://redis:6380", REDIS_TLS_CA_FILE: join(dir, "missing.crt") }, /REDIS_TLS_CA_FILE: cannot read .*missing\.crt/],
      [{ REDIS_PASSWORD: "pw" }, /REDIS_PASSWORD: set without REDIS_URL/],
    ];
    for (const [source, message] of refused) {
      expect(() => redisFromEnv(source), JSON.stringify(source)).toThrow(ConfigError);
      expect(() => redisFromEnv(source), JSON.stringify(source)).toThrow(message);
    }
  });

  it("warns in production about a Redis without a password, or in plaintext away from loopback", () => {
    const warnings = (source: Record<string, string>, production = true) => redisWarnings(redisFromEnv(source), production);
    expect(warnings({ REDIS_URL: "redis://redis:6379" })).toEqual([expect.stringContaining("without a password"), expect.stringContaining("not rediss://")]);
    expect(warnings({ REDIS_URL: "redis://127.0.0.1:6379", REDIS_PASSWORD: "pw" })).toEqual([]);
    expect(warnings({ REDIS_URL: "rediss://auth:pw@redis:6380" })).toEqual([]);
    expect(warnings({ REDIS_URL: "redis://redis:6379" }, false)).toEqual([]);
    expect(warnings({})).toEqual([]);
    expect(warnings({ REDIS_CLUSTER_NODES: "redis-0:6379", REDIS_PASSWORD: "pw" })).toEqual([expect.stringContaining("REDIS_TLS is not true")]);
    expect(warnings({ REDIS_CLUSTER_NODES: "redis-0:6379", REDIS_PASSWORD: "pw", REDIS_TLS: "true" })).toEqual([]);
    expect(warnings({ REDIS_SENTINELS: "127.0.0.1:26379", REDIS_SENTINEL_NAME: "auth" })).toEqual([expect.stringContaining("without a password")]);
  });
});

describe.skipIf(!REDIS_SERVER_INSTALLED)("the cache's client on a Redis with TLS and an ACL user (own redis-server)", () => {
  const password = "acl-password-0123456789";
  const log = createLogger("test", "error", () => {});
  let server: TestRedisServer;
  let ca: string;
  let otherCa: string;
  let port: number;

  beforeAll(async () => {
    const authority = await issueCertificateAuthority({ name: "redis-test-ca" });
    const certificate = await issueWorkloadCertificate(authority, "localhost", { server: true, noIdentity: true });
    ca = join(dir, "redis-ca.crt");
    otherCa = join(dir, "other-ca.crt");
    writeFileSync(ca, authority.certPem);
    writeFileSync(otherCa, (await issueCertificateAuthority({ name: "another-ca" })).certPem);
    writeFileSync(join(dir, "redis.crt"), certificate.certPem);
    writeFileSync(join(dir, "redis.key"), certificate.keyPem);
    // TLS only (no plaintext port), no client certificates; the default user off, one ACL user with a
    // password, limited as docs/configuration.md suggests (its key prefix, no flush, no KEYS).
    server = await startRedisServer({
      args: (tlsPort) => [
        "--port",
        "0",
        "--tls-port",
        String(tlsPort),
        "--tls-cert-file",
        join(dir, "redis.crt"),
        "--tls-key-file",
        join(dir, "redis.key"),
        "--tls-ca-cert-file",
        ca,
        "--tls-auth-clients",
        "no",
        "--user",
        "default",
        "off",
        "--user",
        "auth",
        "on",
        `>${password}`,
        "~tls-test:*",
        "+@all",
        "-@dangerous",
        "+info",
      ],
    });
    port = server.port;
  });
  afterAll(async () => {
    await server?.close();
  });

  async function works(source: Record<string, string>): Promise<boolean> {
    const kv = createRedisKeyValue(redisFromEnv(source)!, log, "tls-test:");
    try {
      if (!(await kv.ready(1_000))) return false;
      await kv.set("probe", "1", 10_000);
      // The rate limiter's script runs under the ACL user too.
      return (await kv.get("probe")) === "1" && (await kv.hit("hits", 10_000)).count >= 1;
    } catch {
      return false;
    } finally {
      await kv.close();
    }
  }

  it("connects over rediss:// with the CA file and the ACL user, from separate settings or in the URL", async () => {
    expect(await works({ REDIS_URL: `rediss://localhost:${port}`, REDIS_USERNAME: "auth", REDIS_PASSWORD: password, REDIS_TLS_CA_FILE: ca })).toBe(true);
    expect(await works({ REDIS_URL: `rediss://auth:${password}@localhost:${port}`, REDIS_TLS_CA_FILE: ca })).toBe(true);
  });

  it("is refused without the password, with a wrong one, in plaintext, or when the server's certificate is not from the CA", async () => {
    expect(await works({ REDIS_URL: `rediss://localhost:${port}`, REDIS_TLS_CA_FILE: ca })).toBe(false);
    expect(await works({ REDIS_URL: `rediss://localhost:${port}`, REDIS_USERNAME: "auth", REDIS_PASSWORD: "wrong-password", REDIS_TLS_CA_FILE: ca })).toBe(false);
    expect(await works({ REDIS_URL: `redis://localhost:${port}`, REDIS_USERNAME: "auth", REDIS_PASSWORD: password })).toBe(false);
    expect(await works({ REDIS_URL: `rediss://localhost:${port}`, REDIS_USERNAME: "auth", REDIS_PASSWORD: password, REDIS_TLS_CA_FILE: otherCa })).toBe(false);
  });
});
