/**
 * Type-level check, compiled by `make typecheck` (tsc): each JSON body the gateway builds in
 * src/routes/responses.ts, as the client's parser hands it over (ISO date strings become Dates), satisfies
 * what the current better-auth client (better-auth-1.7, with usernameClient) declares for that call. A
 * shape that drops or mistypes a declared field stops the build.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { PublicUser } from "../src/http/public-shapes.js";
import type { AuthClient } from "../../testing/better-auth-clients.js";
import type * as responses from "../src/routes/responses.js";

const DATE_FIELDS = ["createdAt", "updatedAt", "expiresAt"] as const;
type DateField = (typeof DATE_FIELDS)[number];

/** What the client's JSON parser makes of a body: ISO date strings become Dates, recursively. */
type Parsed<T> = T extends (infer I)[] ? Parsed<I>[] : T extends object ? { [K in keyof T]: K extends DateField ? (T[K] extends string ? Date : T[K]) : Parsed<T[K]> } : T;

/**
 * usernameClient declares username and displayUsername as strings. A user who signed up without one gets
 * null for both (as from a better-auth server, where the column is optional), so the declared type holds
 * for users with a username: the check is made for those.
 */
type NamedUser = PublicUser & { username: string; displayUsername: string };
type WithNamedUser<T> = { [K in keyof T]: K extends "user" ? NamedUser : T[K] };

type Built<F extends (...args: never[]) => unknown> = Parsed<WithNamedUser<ReturnType<F>>>;

/** The data each call hands back, as the current client declares it (this function only gives types). */
async function declared(client: AuthClient) {
  return {
    signUpEmail: (await client.signUp.email({ name: "", email: "", password: "" })).data!,
    signInEmail: (await client.signIn.email({ email: "", password: "" })).data!,
    signInUsername: (await client.signIn.username({ username: "", password: "" })).data!,
    getSession: (await client.getSession()).data!,
    updateSession: (await client.updateSession({})).data!,
    listAccounts: (await client.listAccounts()).data!,
    requestPasswordReset: (await client.requestPasswordReset({ email: "" })).data!,
    isUsernameAvailable: (await client.isUsernameAvailable({ username: "" })).data!,
  };
}
type Declared = Awaited<ReturnType<typeof declared>>;

describe("our response bodies satisfy the current better-auth client's declared types", () => {
  it("sign-up/email", () => {
    expectTypeOf<Built<typeof responses.signUpResponse>>().toExtend<Declared["signUpEmail"]>();
  });
  it("sign-in/email", () => {
    expectTypeOf<Built<typeof responses.signInEmailResponse>>().toExtend<Declared["signInEmail"]>();
  });
  it("sign-in/username (redirect, token, url, user)", () => {
    expectTypeOf<Built<typeof responses.signInUsernameResponse>>().toExtend<Declared["signInUsername"]>();
    expectTypeOf<Declared["signInUsername"]>().toHaveProperty("redirect").toEqualTypeOf<boolean>();
  });
  it("get-session", () => {
    expectTypeOf<Built<typeof responses.sessionResponse>>().toExtend<Declared["getSession"]>();
  });
  it("update-session", () => {
    expectTypeOf<Built<typeof responses.updateSessionResponse>>().toExtend<Declared["updateSession"]>();
  });
  it("list-accounts (userId and providerId, and provider for 1.1 clients)", () => {
    expectTypeOf<Built<typeof responses.accountListResponse>>().toExtend<Declared["listAccounts"]>();
  });
  it("request-password-reset (status and message)", () => {
    expectTypeOf<Built<typeof responses.passwordResetRequestedResponse>>().toExtend<Declared["requestPasswordReset"]>();
    expectTypeOf<Declared["requestPasswordReset"]>().toHaveProperty("message").toEqualTypeOf<string>();
  });
  it("is-username-available", () => {
    expectTypeOf<Built<typeof responses.usernameAvailabilityResponse>>().toExtend<Declared["isUsernameAvailable"]>();
  });
});
