/**
 * Type-level check, compiled by `make typecheck` (tsc): the /two-factor bodies built in
 * src/routes/responses.ts, as the client's parser hands them over (ISO dates become Dates), satisfy what
 * the current better-auth twoFactorClient declares. A shape that drops or mistypes a declared field stops
 * the build.
 */
import { describe, expectTypeOf, it } from "vitest";
import { createAuthClient } from "better-auth-1.7/client";
import { twoFactorClient } from "better-auth-1.7/client/plugins";
import type * as responses from "../src/routes/responses.js";

type Parsed<T> = T extends (infer I)[]
  ? Parsed<I>[]
  : T extends object
    ? { [K in keyof T]: K extends "createdAt" | "updatedAt" | "expiresAt" ? (T[K] extends string ? Date : T[K]) : Parsed<T[K]> }
    : T;
type Built<F extends (...args: never[]) => unknown> = Parsed<ReturnType<F>>;

const client = () => createAuthClient({ plugins: [twoFactorClient()] });

/** The data each call hands back, as the current client declares it (this function only gives types). */
async function declared(c: ReturnType<typeof client>) {
  return {
    enable: (await c.twoFactor.enable({ password: "" })).data!,
    getTotpUri: (await c.twoFactor.getTotpUri({ password: "" })).data!,
    generateBackupCodes: (await c.twoFactor.generateBackupCodes({ password: "" })).data!,
    disable: (await c.twoFactor.disable({ password: "" })).data!,
    verifyTotp: (await c.twoFactor.verifyTotp({ code: "" })).data!,
    verifyOtp: (await c.twoFactor.verifyOtp({ code: "" })).data!,
    verifyBackupCode: (await c.twoFactor.verifyBackupCode({ code: "" })).data!,
    sendOtp: (await c.twoFactor.sendOtp()).data!,
  };
}
type Declared = Awaited<ReturnType<typeof declared>>;

describe("our /two-factor bodies satisfy the current twoFactorClient's declared types", () => {
  it("enable, get-totp-uri, generate-backup-codes, disable, send-otp", () => {
    expectTypeOf<Built<typeof responses.enableTwoFactorResponse>>().toExtend<Declared["enable"]>();
    expectTypeOf<Built<typeof responses.totpUriResponse>>().toExtend<Declared["getTotpUri"]>();
    expectTypeOf<Built<typeof responses.backupCodesResponse>>().toExtend<Declared["generateBackupCodes"]>();
    expectTypeOf<Built<typeof responses.statusResponse>>().toExtend<Declared["disable"]>();
    expectTypeOf<Built<typeof responses.statusResponse>>().toExtend<Declared["sendOtp"]>();
  });
  it("verify-totp, verify-otp, verify-backup-code: token and user", () => {
    expectTypeOf<Built<typeof responses.twoFactorVerifiedResponse>>().toExtend<Declared["verifyTotp"]>();
    expectTypeOf<Built<typeof responses.twoFactorVerifiedResponse>>().toExtend<Declared["verifyOtp"]>();
    expectTypeOf<Built<typeof responses.twoFactorVerifiedResponse>>().toExtend<Declared["verifyBackupCode"]>();
  });
});
