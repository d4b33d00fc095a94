/**
 * Type-level check, compiled by `make typecheck` (tsc): the passkey the /passkey routes answer
 * (src/http/public-shapes.ts), as the client's parser hands it over (ISO dates become Dates), satisfies the
 * Passkey better-auth 1.7's passkey plugin declares. A shape that drops or mistypes a declared field stops
 * the build.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { Passkey } from "@auth-platform/test-clients/passkey";
import type { publicPasskey } from "../src/http/public-shapes.js";

type Parsed<T> = { [K in keyof T]: K extends "createdAt" ? Date : T[K] };

describe("our passkey satisfies the passkey plugin's declared type", () => {
  it("list-user-passkeys, update-passkey and verify-registration answer it", () => {
    expectTypeOf<Parsed<ReturnType<typeof publicPasskey>>>().toExtend<Passkey>();
  });
});
