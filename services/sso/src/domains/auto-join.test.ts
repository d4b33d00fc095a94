import { newId } from "@auth-platform/runtime/random";
import { beforeEach, describe, expect, it } from "vitest";
import { errorCode } from "../../../../testing/error-code.js";
import { memoryDomainStore } from "../store/memory-domain-store.js";
import { type AutoJoinDeps, applyDomainAutoJoin } from "./auto-join.js";
import type { DomainRecord, DomainStore } from "./domain-claims.js";

const DAY = 86_400_000;
const T0 = new Date(Date.UTC(2030, 0, 1));
const later = (ms: number) => new Date(T0.getTime() + ms);

describe("applying auto-join for a verified address", () => {
  let domains: DomainStore;
  let added: string[];
  let deps: AutoJoinDeps;

  beforeEach(() => {
    domains = memoryDomainStore();
    added = [];
    deps = {
      domains,
      addMember: async (organizationId, userId, role) => {
        added.push(`${organizationId} ${userId} ${role}`);
      },
    };
  });

  const domain = async (overrides: Partial<DomainRecord>) => {
    const record: DomainRecord = {
      id: newId(),
      organizationId: "org-acme",
      domain: "acme.example",
      token: "t",
      createdAt: T0,
      expiresAt: later(7 * DAY),
      verifiedAt: T0,
      autoJoinRole: "member",
      autoJoinSince: T0,
      ...overrides,
    };
    await domains.insertDomain(record);
    return record;
  };

  it("adds the user to the organization of the address's verified domain, with its role", async () => {
    await domain({});
    expect(await applyDomainAutoJoin(deps, { userId: "u1", email: "jane@acme.example", verifiedAt: later(1) })).toEqual({ organizationId: "org-acme", role: "member" });
    expect(added).toEqual(["org-acme u1 member"]);
  });

  it("asks again when delivered again: AddMember keeps an existing member's role", async () => {
    await domain({ autoJoinRole: "admin" });
    await applyDomainAutoJoin(deps, { userId: "u1", email: "jane@acme.example", verifiedAt: later(1) });
    await applyDomainAutoJoin(deps, { userId: "u1", email: "jane@acme.example", verifiedAt: later(1) });
    expect(added).toEqual(["org-acme u1 admin", "org-acme u1 admin"]);
  });

  it("joins nobody by another domain, a sub-domain, a pending claim or auto-join off", async () => {
    await domain({});
    await domain({ domain: "pending.example", verifiedAt: null });
    await domain({ domain: "off.example", autoJoinRole: null, autoJoinSince: null });
    for (const email of ["jane@other.example", "jane@eng.acme.example", "jane@pending.example", "jane@off.example", "not an address"]) {
      expect(await applyDomainAutoJoin(deps, { userId: "u1", email, verifiedAt: later(1) })).toBeUndefined();
    }
    expect(added).toEqual([]);
  });

  it("joins nobody whose address was verified before auto-join was turned on", async () => {
    await domain({ autoJoinSince: later(DAY) });
    expect(await applyDomainAutoJoin(deps, { userId: "u1", email: "jane@acme.example", verifiedAt: later(DAY - 1) })).toBeUndefined();
    expect(await applyDomainAutoJoin(deps, { userId: "u2", email: "john@acme.example", verifiedAt: later(DAY) })).toBeDefined();
    expect(added).toEqual(["org-acme u2 member"]);
  });

  it("refuses a request without a user", async () => {
    expect(await errorCode(applyDomainAutoJoin(deps, { userId: "", email: "jane@acme.example", verifiedAt: later(1) }))).toBe("VALIDATION_ERROR");
  });

  it("fails when the organization service cannot be reached, so identity keeps the event", async () => {
    await domain({});
    deps.addMember = async () => {
      throw new Error("unreachable");
    };
    await expect(applyDomainAutoJoin(deps, { userId: "u1", email: "jane@acme.example", verifiedAt: later(1) })).rejects.toThrow("unreachable");
  });
});
