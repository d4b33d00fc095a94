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
type Parsed<T> = T extends (infer I)[]
  ? Parsed<I>[]
  : T extends object
    ? { [K in keyof T]: K extends DateField ? (T[K] extends string ? Date : T[K]) : Parsed<T[K]> }
    : T;
type Built<F extends (...args: never[]) => unknown> = Parsed<ReturnType<F>>;

const client = () => createAuthClient({ plugins: [organizationClient()] });

/** The data each call hands back, as the current client declares it (this function only gives types). */
async function declared(c: ReturnType<typeof client>) {
  return {
    list: (await c.organization.list()).data!,
    inviteMember: (await c.organization.inviteMember({ email: "", role: "member" })).data!,
    checkSlug: (await c.organization.checkSlug({ slug: "" })).data!,
  };
}
type Declared = Awaited<ReturnType<typeof declared>>;

/**
 * Left out, on purpose: the current client types `role` as the union of its default role names, where ours
 * are configurable (a string), and it declares `member.user` on accept-invitation and remove-member, which
 * answer the member as SPEC.md §7 shows it. Those bodies are checked at run time instead
 * (organization-client.int.test.ts).
 */
describe("our organization bodies satisfy the current organizationClient's declared types", () => {
  it("list", () => {
    expectTypeOf<Built<typeof responses.organizationListResponse>>().toExtend<Declared["list"]>();
  });
  it("check-slug", () => {
    expectTypeOf<Built<typeof responses.slugAvailableResponse>>().toExtend<Declared["checkSlug"]>();
  });
  it("invitations carry one of the four statuses", () => {
    expectTypeOf<Built<typeof responses.invitationResponse>["status"]>().toExtend<Declared["inviteMember"]["status"]>();
  });
});
