/** A sign-in failure burst becomes user.sign_in_failed_burst for the user it names, once per burst id. */
import { describe, expect, it } from "vitest";
import { errorCode } from "../../../../testing/error-code.js";
import { aSignedUpUser, testRegistry } from "../../test/test-registry.js";
import { recordSignInFailureBurst } from "./sign-in-bursts.js";

const burst = { failures: 5, windowSeconds: 900, ipAddresses: ["203.0.113.9", "198.51.100.4"], at: new Date(Date.UTC(2031, 0, 1)) };

describe("sign-in failure bursts", () => {
  it("publishes one event per burst id for the user the address names, with no password or address", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps, { email: "ada@acme.example" });
    await deps.backgroundSettled();
    deps.webhooks.published.length = 0;
    await recordSignInFailureBurst(deps, { ...burst, eventId: "burst-1", identifier: " Ada@Acme.example " });
    await recordSignInFailureBurst(deps, { ...burst, eventId: "burst-1", identifier: "ada@acme.example" });
    await deps.backgroundSettled();
    // One event id: a repeat is absorbed by the outbox (still queued) or by notification's intake (published).
    expect(new Set(deps.webhooks.published.map((e) => e.id))).toEqual(new Set(["burst-1"]));
    expect(deps.webhooks.published.map((e) => ({ type: e.type, data: JSON.parse(e.payloadJson) }))[0]).toEqual({
      type: "user.sign_in_failed_burst",
      data: { userId: user.id, failures: 5, windowSeconds: 900, ipAddresses: ["203.0.113.9", "198.51.100.4"] },
    });
    expect(await deps.store.findUserEvents(user.id)).toEqual([]);
  });

  it("writes nothing for an identifier that names no user, and refuses a malformed burst", async () => {
    const deps = testRegistry();
    await recordSignInFailureBurst(deps, { ...burst, eventId: "burst-2", identifier: "nobody@acme.example" });
    await recordSignInFailureBurst(deps, { ...burst, eventId: "burst-3", identifier: "no-such-username" });
    await deps.backgroundSettled();
    expect(deps.webhooks.published).toEqual([]);
    expect(await errorCode(recordSignInFailureBurst(deps, { ...burst, eventId: "", identifier: "x" }))).toBe("VALIDATION_ERROR");
    expect(await errorCode(recordSignInFailureBurst(deps, { ...burst, eventId: "b", identifier: "x", ipAddresses: Array(21).fill("203.0.113.1") }))).toBe("VALIDATION_ERROR");
  });
});
