/**
 * The order of the sign-in screen's two passkey ceremonies. Starting a WebAuthn ceremony aborts the pending
 * one, so an autofill request whose options arrive after the button's ceremony began must not start: it
 * would close the button's dialog. The browser and the API are stand-ins that record what was asked of them.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";

const browser = vi.hoisted(() => ({ started: [] as { useBrowserAutofill?: boolean }[] }));
const options = vi.hoisted(() => ({ pending: [] as ((value: unknown) => void)[] }));

vi.mock("@simplewebauthn/browser", () => ({
  browserSupportsWebAuthn: () => true,
  browserSupportsWebAuthnAutofill: async () => true,
  startAuthentication: async (args: { useBrowserAutofill?: boolean }) => {
    browser.started.push(args);
    return { id: "credential" };
  },
  startRegistration: async () => ({ id: "credential" }),
  WebAuthnAbortService: { cancelCeremony: () => undefined },
  WebAuthnError: class extends Error {},
}));

vi.mock("./api", () => ({
  api: {
    passkey: {
      // Each request for options waits until the test answers it, in the order it chooses.
      authenticateOptions: () => new Promise((resolve) => options.pending.push(resolve)),
      verifyAuthentication: async () => ({ token: "t" }),
    },
  },
}));

const { cancelPasskeyCeremony, signInWithPasskey, signInWithPasskeyAutofill } = await import("./passkeys");

beforeEach(() => {
  browser.started = [];
  options.pending = [];
});

describe("the sign-in screen's passkey ceremonies", () => {
  it("starts the autofill request once its options arrive", async () => {
    const autofill = signInWithPasskeyAutofill();
    options.pending[0]?.({ challenge: "c" });
    expect(await autofill).toEqual({ token: "t" });
    expect(browser.started).toEqual([expect.objectContaining({ useBrowserAutofill: true })]);
  });

  it("does not start the autofill request once the button's ceremony began while its options came", async () => {
    const autofill = signInWithPasskeyAutofill();
    const button = signInWithPasskey();
    options.pending[1]?.({ challenge: "button" });
    expect(await button).toEqual({ token: "t" });
    options.pending[0]?.({ challenge: "autofill" });
    expect(await autofill).toBeUndefined();
    expect(browser.started).toEqual([expect.objectContaining({ optionsJSON: { challenge: "button" } })]);
  });

  it("does not start the autofill request once the screen was left while its options came", async () => {
    const autofill = signInWithPasskeyAutofill();
    cancelPasskeyCeremony();
    options.pending[0]?.({ challenge: "autofill" });
    expect(await autofill).toBeUndefined();
    expect(browser.started).toEqual([]);
  });
});
