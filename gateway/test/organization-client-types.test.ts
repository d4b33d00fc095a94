/**
 * Type-level check, compiled by `make typecheck` (tsc): each organization body the gateway builds in
 * src/routes/responses.ts, as the client's parser hands it over (ISO date strings become Dates), satisfies
 * what the current better-auth organizationClient declares for that call.
 */
import { describe, expectTypeOf, it } from "vitest";
import { createAuthClient } from "better-auth-1.7/client";
import { organizationClient } from "better-auth-1.7/client/plugins";
import type * as responses from "../src/routes/responses.js";

const DATE_FIELDS = ["createdAt", "updatedAt", "expiresAt"] as const;
type DateField = (typeof DATE_FIELDS)[number];
type Parsed<T> = T extends (infer I)[] ? Parsed<I>[] : T extends object ? { [K in keyof T]: K extends DateField ? (T[K] extends string ? Date : T[K]) : Parsed<T[K]> } : T;
type Built<F extends (...args: never[]) => unknown> = Parsed<ReturnType<F>>;

const client = () => createAuthClient({ plugins: [organizationClient()] });

/** The data each call hands back, as the current client declares it (this function only gives types). */
async function declared(c: ReturnType<typeof client>) {
  return {
    list: (await c.organization.list()).data!,
    inviteMember: (await c.organization.inviteMember({ email: "", role: "member" })).data!,
    checkSlug: (await c.organization.checkSlug({ slug: "" })).data!,
    listUserInvitations: (await c.organization.listUserInvitations()).data!,
    removeMember: (await c.organization.removeMember({ memberIdOrEmail: "" })).data!,
  };
}
type Declared = Awaited<ReturnType<typeof declared>>;

/**
 * Left out, on purpose: the current client types `role` as the union of its default role names, where ours
 * are configurable (a string), so whole member bodies are not compared; and it declares a user's `image` as
 * optional where ours is null when unset (as its own server answers from the database). Those bodies are
 * checked at run time instead (organization-client.int.test.ts).
 */
type RemovedUser = Built<typeof responses.removedMemberResponse>["member"]["user"];
type DeclaredRemovedUser = Declared["removeMember"]["member"]["user"];
describe("our organization bodies satisfy the current organizationClient's declared types", () => {
  it("list", () => {
    expectTypeOf<Built<typeof responses.organizationListResponse>>().toExtend<Declared["list"]>();
  });
  it("check-slug", () => {
    expectTypeOf<Built<typeof responses.slugAvailableResponse>>().toExtend<Declared["checkSlug"]>();
  });
  it("list-user-invitations: each invitation with its organization's name", () => {
    type Item = Built<typeof responses.userInvitationListResponse>[number];
    expectTypeOf<Omit<Item, "role">>().toExtend<Omit<Declared["listUserInvitations"][number], "role">>();
  });
  it("remove-member: the removed member with its user", () => {
    expectTypeOf<Omit<NonNullable<RemovedUser>, "image">>().toExtend<Omit<DeclaredRemovedUser, "image">>();
  });
  it("invitations carry one of the four statuses", () => {
    expectTypeOf<Built<typeof responses.invitationResponse>["status"]>().toExtend<Declared["inviteMember"]["status"]>();
  });
});
