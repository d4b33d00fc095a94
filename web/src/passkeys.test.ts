/**
 * The order of the sign-in screen's two passkey ceremonies. Starting a WebAuthn ceremony aborts the pending
 * one, so an autofill request whose options arrive after the button's ceremony began must not start: it
 * would close the button's dialog. And a passkey the platform refuses as unknown is reported to the device.
 * The browser and the API are stand-ins that record what was asked of them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const browser = vi.hoisted(() => ({ started: [] as { useBrowserAutofill?: boolean }[] }));
const options = vi.hoisted(() => ({ pending: [] as ((value: unknown) => void)[] }));
const verification = vi.hoisted(() => ({ refusal: undefined as Error | undefined }));

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
  ApiError: class extends Error {
    constructor(
      readonly status: number,
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  },
  api: {
    passkey: {
      // Each request for options waits until the test answers it, in the order it chooses.
      authenticateOptions: () => new Promise((resolve) => options.pending.push(resolve)),
      verifyAuthentication: async () => {
        if (verification.refusal) throw verification.refusal;
        return { token: "t" };
      },
    },
  },
}));

const { ApiError } = await import("./api");
const { cancelPasskeyCeremony, signInWithPasskey, signInWithPasskeyAutofill } = await import("./passkeys");

beforeEach(() => {
  browser.started = [];
  options.pending = [];
  verification.refusal = undefined;
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

describe("a passkey the platform does not know", () => {
  const signalUnknownCredential = vi.fn(async (_details: { rpId: string; credentialId: string }) => undefined);
  beforeEach(() => {
    signalUnknownCredential.mockClear();
    vi.stubGlobal("PublicKeyCredential", { signalUnknownCredential });
  });
  afterEach(() => vi.unstubAllGlobals());

  /** Answers the next request for options, once it was made. */
  const answerOptions = async (value: unknown) => {
    await vi.waitFor(() => expect(options.pending).toHaveLength(1));
    options.pending[0]?.(value);
  };

  it.each([
    ["the button's", () => signInWithPasskey()],
    ["the autofill's", () => signInWithPasskeyAutofill()],
  ])("is forgotten on the device when the platform refuses %s passkey as unknown, and the refusal still shows", async (_, signIn) => {
    verification.refusal = new ApiError(404, "PASSKEY_NOT_FOUND", "Passkey not found");
    const refused = signIn();
    await answerOptions({ challenge: "c", rpId: "auth.example.com" });
    await expect(refused).rejects.toBe(verification.refusal);
    expect(signalUnknownCredential).toHaveBeenCalledWith({ rpId: "auth.example.com", credentialId: "credential" });
  });

  it("stays on the device after any other refusal", async () => {
    verification.refusal = new ApiError(401, "AUTHENTICATION_FAILED", "Authentication failed");
    const button = signInWithPasskey();
    await answerOptions({ challenge: "c", rpId: "auth.example.com" });
    await expect(button).rejects.toBe(verification.refusal);
    expect(signalUnknownCredential).not.toHaveBeenCalled();
  });

  it("still shows the refusal where the browser has no such signal, or refuses it", async () => {
    verification.refusal = new ApiError(404, "PASSKEY_NOT_FOUND", "Passkey not found");
    signalUnknownCredential.mockRejectedValueOnce(new TypeError("rpId"));
    const refused = signInWithPasskey();
    await answerOptions({ challenge: "c", rpId: "auth.example.com" });
    await expect(refused).rejects.toBe(verification.refusal);
    vi.stubGlobal("PublicKeyCredential", {});
    options.pending = [];
    const unsupported = signInWithPasskey();
    await answerOptions({ challenge: "c" });
    await expect(unsupported).rejects.toBe(verification.refusal);
  });
});
