/**
 * Type-level check, compiled by `make typecheck` (tsc): the key the /api-key routes answer
 * (src/routes/api-keys.ts), as the client's parser hands it over (ISO dates become Dates), satisfies the
 * ApiKey better-auth 1.7's api-key plugin declares, less its stored hash. A shape that drops or mistypes a
 * declared field stops the build.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { ApiKey } from "@auth-platform/test-clients/api-key";
import type { publicApiKey } from "../src/routes/api-keys.js";

const DATES = ["createdAt", "updatedAt", "expiresAt", "lastRequest", "lastRefillAt"] as const;
type Parsed<T> = { [K in keyof T]: K extends (typeof DATES)[number] ? (null extends T[K] ? Date | null : Date) : T[K] };

describe("our API key satisfies the api-key plugin's declared type", () => {
  it("get, list, update and verify answer it; create adds the key", () => {
    expectTypeOf<Parsed<ReturnType<typeof publicApiKey>>>().toExtend<Omit<ApiKey, "key">>();
  });
});
