/** The HTTP shapes come out the same from a contract message and from the session cache's record. */
import { describe, expect, it } from "vitest";
import { publicSession, publicUser } from "./public-shapes.js";

const created = new Date("2026-01-02T03:04:05.678Z");
const updated = new Date("2026-02-03T04:05:06.789Z");

describe("public shapes", () => {
  it("a user: the same JSON from a message (Dates, unset fields) and from the cache record (ISO strings, nulls)", () => {
    const message = { id: "u1", name: "Ada", email: "ada@example.com", emailVerified: true, createdAt: created, updatedAt: updated, extraFields: { age: 36 } };
    const cached = { ...message, image: null, username: null, displayUsername: null, createdAt: created.toISOString(), updatedAt: updated.toISOString() };
    const expected = {
      age: 36,
      id: "u1",
      name: "Ada",
      email: "ada@example.com",
      emailVerified: true,
      image: null,
      createdAt: created.toISOString(),
      updatedAt: updated.toISOString(),
      username: null,
      displayUsername: null,
      twoFactorEnabled: false,
      role: null,
      banned: false,
      banReason: null,
      banExpires: null,
    };
    expect(publicUser(message)).toEqual(expected);
    expect(publicUser(cached)).toEqual(expected);
    expect(publicUser({ ...cached, twoFactorEnabled: true })).toEqual({ ...expected, twoFactorEnabled: true });
    const banExpires = "2026-03-04T05:06:07.890Z";
    const admin = { role: "admin", banned: true, banReason: "spam", banExpires };
    expect(publicUser({ ...message, ...admin, banExpires: new Date(banExpires) })).toEqual({ ...expected, ...admin });
    expect(publicUser({ ...cached, ...admin })).toEqual({ ...expected, ...admin });
  });

  it("a user with a username shows displayUsername (the username when none was typed); own fields win over extra ones", () => {
    const user = { id: "u2", name: "Bo", email: "bo@example.com", emailVerified: false, username: "bo", extraFields: { id: "forged", emailVerified: true } };
    expect(publicUser(user)).toMatchObject({ id: "u2", emailVerified: false, username: "bo", displayUsername: "bo" });
    expect(publicUser({ ...user, displayUsername: "Bo" })).toMatchObject({ username: "bo", displayUsername: "Bo" });
  });

  it("a session: the same JSON from a message and from the cache record", () => {
    const message = {
      id: "s1",
      token: "t".repeat(32),
      userId: "u1",
      expiresAt: updated,
      createdAt: created,
      updatedAt: created,
      ipAddress: "203.0.113.7",
      authMethod: "passkey",
      authenticatedAt: created,
    };
    const cached = {
      ...message,
      expiresAt: updated.toISOString(),
      createdAt: created.toISOString(),
      updatedAt: created.toISOString(),
      userAgent: null,
      impersonatedBy: null,
      activeOrganizationId: null,
      secondFactor: null,
      authenticatedAt: created.toISOString(),
    };
    const expected = {
      id: "s1",
      token: "t".repeat(32),
      userId: "u1",
      expiresAt: updated.toISOString(),
      ipAddress: "203.0.113.7",
      userAgent: null,
      createdAt: created.toISOString(),
      updatedAt: created.toISOString(),
      impersonatedBy: null,
      activeOrganizationId: null,
      activeTeamId: null,
      authMethod: "passkey",
      secondFactor: null,
      authenticatedAt: created.toISOString(),
    };
    expect(publicSession(message)).toEqual(expected);
    // A cache record written before the fields existed: they read as null.
    const { authMethod: _m, secondFactor: _f, authenticatedAt: _a, ...older } = cached;
    expect(publicSession(older)).toEqual({ ...expected, authMethod: null, secondFactor: null, authenticatedAt: null });
    expect(publicSession(cached)).toEqual(expected);
  });
});
