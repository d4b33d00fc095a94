/** Workload identity from a certificate's subjectaltname, and the access decision. */
import { describe, expect, it } from "vitest";
import { checkAccess, spiffeId, workloadOf } from "./grpc-access.js";

describe("workloadOf", () => {
  it("takes the name from our trust domain's SPIFFE ID", () => {
    expect(workloadOf("DNS:session, URI:spiffe://auth-platform/session")).toBe("session");
    expect(workloadOf(`URI:${spiffeId("internal-client")}`)).toBe("internal-client");
    expect(workloadOf('DNS:"odd, name", URI:spiffe://auth-platform/gateway')).toBe("gateway");
  });

  it("has no identity for a certificate without exactly one valid SPIFFE ID of our trust domain", () => {
    for (const san of [
      undefined,
      "",
      "DNS:gateway",
      "URI:spiffe://other-domain/gateway",
      "URI:spiffe://auth-platform/",
      "URI:spiffe://auth-platform/gateway/extra",
      "URI:spiffe://auth-platform/Gateway",
      "URI:spiffe://auth-platform.evil/gateway",
      "URI:https://auth-platform/gateway",
      "URI:spiffe://auth-platform/gateway, URI:spiffe://auth-platform/identity",
      // A name that smuggles a SPIFFE ID into another entry: Node quotes it, and it stays one DNS name.
      'DNS:"a, URI:spiffe://auth-platform/identity, DNS:b"',
      'DNS:"a\\u002c URI:spiffe://auth-platform/identity\\u002c DNS:b"', // what Node prints for that name
      'URI:"spiffe://auth-platform/gateway,x"',
      'DNS:"unterminated',
    ]) {
      expect(workloadOf(san), String(san)).toBeUndefined();
    }
  });
});

describe("checkAccess", () => {
  it("allows a caller in the row, refuses others and the unidentified", () => {
    expect(checkAccess("identity", ["identity"])).toBeUndefined();
    expect(checkAccess("gateway", ["identity"])).toMatchObject({ code: "CALLER_NOT_ALLOWED", grpcStatus: 7 });
    expect(checkAccess("gateway", [])).toMatchObject({ code: "CALLER_NOT_ALLOWED" });
    expect(checkAccess(undefined, ["identity"])).toMatchObject({ code: "CALLER_NOT_IDENTIFIED", grpcStatus: 16 });
  });
});
