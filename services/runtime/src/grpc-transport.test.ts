/** GRPC_TLS_DIR / GRPC_INSECURE / GRPC_HOST / GRPC_HEALTH_PORT: one parser for every process. */
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config.js";
import { DEFAULT_TLS_REFRESH_MS, grpcServerFromEnv, grpcTlsFromEnv, insecureWarning } from "./grpc-transport.js";

describe("grpcTlsFromEnv", () => {
  it("uses the certificate folder when GRPC_TLS_DIR is set", () => {
    expect(grpcTlsFromEnv({ GRPC_TLS_DIR: "/etc/grpc-tls", NODE_ENV: "production" })).toEqual({
      kind: "mtls",
      dir: "/etc/grpc-tls",
      refreshMs: DEFAULT_TLS_REFRESH_MS,
    });
  });

  it("refuses production with neither GRPC_TLS_DIR nor GRPC_INSECURE=true", () => {
    for (const env of [{ NODE_ENV: "production" }, { NODE_ENV: "production", GRPC_TLS_DIR: "" }, { NODE_ENV: "production", GRPC_INSECURE: "false" }]) {
      expect(() => grpcTlsFromEnv(env)).toThrow(ConfigError);
      expect(() => grpcTlsFromEnv(env)).toThrow(/GRPC_TLS_DIR: required when NODE_ENV=production/);
    }
  });

  it("runs plaintext in production only when asked for explicitly, and says so", () => {
    const tls = grpcTlsFromEnv({ NODE_ENV: "production", GRPC_INSECURE: "true" });
    expect(tls).toEqual({ kind: "insecure", explicit: true });
    expect(insecureWarning(tls)).toMatch(/GRPC_INSECURE=true/);
  });

  it("outside production, no setting means plaintext with a warning", () => {
    const tls = grpcTlsFromEnv({ NODE_ENV: "development" });
    expect(tls).toEqual({ kind: "insecure", explicit: false });
    expect(insecureWarning(tls)).toMatch(/GRPC_TLS_DIR is not set/);
    expect(insecureWarning({ kind: "mtls", dir: "/x", refreshMs: 1 })).toBeUndefined();
  });

  it("refuses both at once, and a GRPC_INSECURE that is not a boolean", () => {
    expect(() => grpcTlsFromEnv({ GRPC_TLS_DIR: "/etc/grpc-tls", GRPC_INSECURE: "true" })).toThrow(/GRPC_INSECURE: cannot be true while GRPC_TLS_DIR is set/);
    expect(() => grpcTlsFromEnv({ GRPC_INSECURE: "sometimes" })).toThrow(/GRPC_INSECURE/);
  });
});

describe("grpcServerFromEnv", () => {
  it("binds every interface with no health-only port by default", () => {
    expect(grpcServerFromEnv({})).toEqual({ tls: { kind: "insecure", explicit: false }, host: "0.0.0.0", healthPort: undefined });
  });

  it("reads GRPC_HOST and GRPC_HEALTH_PORT", () => {
    expect(grpcServerFromEnv({ GRPC_HOST: "127.0.0.1", GRPC_HEALTH_PORT: "8081", GRPC_TLS_DIR: "/tls" })).toEqual({
      tls: { kind: "mtls", dir: "/tls", refreshMs: DEFAULT_TLS_REFRESH_MS },
      host: "127.0.0.1",
      healthPort: 8081,
    });
    expect(grpcServerFromEnv({ GRPC_HEALTH_PORT: "" }).healthPort).toBeUndefined();
  });

  it("names a bad health port", () => {
    for (const value of ["0", "70000", "probe"]) expect(() => grpcServerFromEnv({ GRPC_HEALTH_PORT: value })).toThrow(/GRPC_HEALTH_PORT/);
  });
});
