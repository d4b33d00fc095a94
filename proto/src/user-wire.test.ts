/**
 * The user on the wire between releases (docs/adr/0047-one-user-message-between-releases.md): bytes written
 * by the previous release's generated code, kept here as hex, read by this release's. A change of a field
 * number or type of auth.common.v1.User fails here before it breaks a rolling upgrade.
 */
import { describe, expect, it } from "vitest";
import { User } from "./gen/auth/common/v1/user.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const bytesOf = (hex: string) => new Uint8Array(Buffer.from(hex, "hex"));

/** The user of every fixture, every field set. */
const ADA: User = {
  id: "u1",
  name: "Ada",
  email: "ada@example.com",
  emailVerified: true,
  image: "https://example.com/a.png",
  createdAt: new Date("2026-11-28T12:00:00.000Z"),
  updatedAt: new Date("2026-11-28T12:30:00.000Z"),
  username: "ada",
  displayUsername: "Ada",
  role: "admin",
  banned: true,
  banReason: "spam",
  banExpires: new Date("2026-12-01T00:00:00.000Z"),
  extraFields: { plan: "pro" },
  twoFactorEnabled: true,
};

/** ADA as the previous release's auth.identity.v1.User encoded it (the message auth.common.v1.User replaced). */
const PREVIOUS_IDENTITY_USER =
  "0a02753112034164611a0f616461406578616d706c652e636f6d20012a1968747470733a2f2f6578616d706c652e636f6d2f612e706e67320608c084abd8063a0608c892abd80642036164614a03416461520561646d696e580162047370616d6a0608809cb8d8067a0f0a0d0a04706c616e12051a0370726ff00101";

describe("auth.common.v1.User on the wire", () => {
  it("reads what auth.identity.v1.User of the previous release wrote, and writes the same bytes", () => {
    expect(User.decode(bytesOf(PREVIOUS_IDENTITY_USER))).toEqual(ADA);
    expect(hex(User.encode(ADA).finish())).toBe(PREVIOUS_IDENTITY_USER);
  });
});
