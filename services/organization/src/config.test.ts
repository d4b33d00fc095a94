import { describe, expect, it } from "vitest";
import { ConfigError } from "@auth-platform/runtime/config";
import { organizationConfig } from "./config.js";
import { DEFAULT_ROLES } from "./domain/roles.js";

describe("organizationConfig", () => {
  it("has working defaults: port 50054, a SQLite file, owner/admin/member, two-day invitations, 100 pending at most", () => {
    expect(organizationConfig({})).toMatchObject({
      port: 50054,
      databaseUrl: "file:data/organization.db",
      identityServiceUrl: "127.0.0.1:50051",
      sessionServiceUrl: "127.0.0.1:50052",
      notificationServiceUrl: "127.0.0.1:50056",
      appUrl: "http://localhost:3000",
      allowCreation: true,
      organizationLimit: 0,
      deleteEnabled: true,
      creatorRole: "owner",
      invitationExpiresInSeconds: 172_800,
      invitationLimit: 100,
      roles: DEFAULT_ROLES,
    });
  });

  it("links invitations to AUTH_APP_URL, else to the origin of AUTH_BASE_URL", () => {
    expect(organizationConfig({ AUTH_APP_URL: "https://app.example.com/" }).appUrl).toBe("https://app.example.com");
    expect(organizationConfig({ AUTH_BASE_URL: "https://auth.example.com/api/auth" }).appUrl).toBe("https://auth.example.com");
  });

  it("refuses roles with unknown resources or actions, and a creator role that is not a role", () => {
    expect(() => organizationConfig({ ORGANIZATION_ROLES: '{"owner":{"billing":["read"]}}' })).toThrow(ConfigError);
    expect(() => organizationConfig({ ORGANIZATION_ROLES: '{"owner":{"member":["fly"]}}' })).toThrow(ConfigError);
    expect(() => organizationConfig({ ORGANIZATION_ROLES: "not json" })).toThrow(/ORGANIZATION_ROLES/);
    expect(() => organizationConfig({ ORGANIZATION_CREATOR_ROLE: "founder" })).toThrow(/ORGANIZATION_CREATOR_ROLE/);
    expect(() => organizationConfig({ ORGANIZATION_LIMIT: "-1" })).toThrow(/ORGANIZATION_LIMIT/);
    expect(() => organizationConfig({ ORGANIZATION_INVITATION_LIMIT: "0" })).toThrow(/ORGANIZATION_INVITATION_LIMIT/);
  });
});
