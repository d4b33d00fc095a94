/**
 * The user on the wire between releases (docs/adr/0047-one-user-message-between-releases.md): bytes written
 * by the previous release's generated code, kept here as hex, read by this release's; and this release's
 * bytes holding, for the previous release's readers, the very field those read. A change of a field number
 * or type of auth.common.v1.User, or of a deprecated SessionUser field, fails here before it breaks a
 * rolling upgrade.
 */
import { describe, expect, it } from "vitest";
import { User } from "./gen/auth/common/v1/user.js";
import { CreateSessionRequest, GetSessionResponse, PutUserCopyRequest, RevokeUserSessionsRequest } from "./gen/auth/session/v1/session.js";

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

/** ADA as the previous release's auth.session.v1.SessionUser encoded it (the same fields, other numbers). */
const PREVIOUS_SESSION_USER =
  "120275311a03416461220f616461406578616d706c652e636f6d2801321968747470733a2f2f6578616d706c652e636f6d2f612e706e673a0608c084abd806420608c892abd8064a0361646152034164615a0f0a0d0a04706c616e12051a0370726ff00101620561646d696e680172047370616d7a0608809cb8d806";

/** A length-delimited field as hex: its tag, its length, its bytes (lengths under 128 here). */
const field = (number: number, payload: string) => hex(new Uint8Array([(number << 3) | 2, payload.length / 2])) + payload;

/** Each message that carried a SessionUser: the previous release's bytes (ADA at `field`), and this release's writer. */
const CARRIERS = [
  {
    name: "CreateSessionRequest (identity, admin -> session)",
    field: 7,
    previous: `0a027531120c3139382e35312e3130302e371a036f6c642001${field(7, PREVIOUS_SESSION_USER)}`,
    decode: (bytes: Uint8Array) => CreateSessionRequest.decode(bytes),
    encodeBoth: () => CreateSessionRequest.encode({ userId: "u1", rememberMe: true, expiresInSeconds: 0, user: ADA, sessionUser: ADA }).finish(),
  },
  {
    name: "PutUserCopyRequest (identity -> session)",
    field: 1,
    previous: field(1, PREVIOUS_SESSION_USER),
    decode: (bytes: Uint8Array) => PutUserCopyRequest.decode(bytes),
    encodeBoth: () => PutUserCopyRequest.encode({ user: ADA, sessionUser: ADA }).finish(),
  },
  {
    name: "RevokeUserSessionsRequest (identity -> session)",
    field: 2,
    previous: `0a027531${field(2, PREVIOUS_SESSION_USER)}`,
    decode: (bytes: Uint8Array) => RevokeUserSessionsRequest.decode(bytes),
    encodeBoth: () => RevokeUserSessionsRequest.encode({ userId: "u1", user: ADA, sessionUser: ADA }).finish(),
  },
  {
    name: "GetSessionResponse (session -> gateway, admin, internal clients)",
    field: 2,
    previous: field(2, PREVIOUS_SESSION_USER),
    decode: (bytes: Uint8Array) => GetSessionResponse.decode(bytes),
    encodeBoth: () => GetSessionResponse.encode({ refreshed: false, user: ADA, sessionUser: ADA }).finish(),
  },
];

describe("auth.common.v1.User on the wire", () => {
  it("reads what auth.identity.v1.User of the previous release wrote, and writes the same bytes", () => {
    expect(User.decode(bytesOf(PREVIOUS_IDENTITY_USER))).toEqual(ADA);
    expect(hex(User.encode(ADA).finish())).toBe(PREVIOUS_IDENTITY_USER);
  });

  for (const carrier of CARRIERS) {
    it(`${carrier.name}: reads the previous release's user, and writes it where that release reads it`, () => {
      // The previous release wrote the deprecated form alone: it reads as sessionUser, and `user` is absent.
      const read = carrier.decode(bytesOf(carrier.previous));
      expect(read.user).toBeUndefined();
      expect(read.sessionUser).toEqual(ADA);
      // This release writes both; the previous release's reader finds its field byte for byte (and skips `user`).
      const written = hex(carrier.encodeBoth());
      expect(written).toContain(field(carrier.field, PREVIOUS_SESSION_USER));
      expect(written).toContain(PREVIOUS_IDENTITY_USER);
      expect(carrier.decode(bytesOf(written))).toMatchObject({ user: ADA, sessionUser: ADA });
    });
  }
});
