import { beforeAll, describe, expect, it } from "vitest";
import { createSamlIdp, type TestSamlIdp } from "../../../../testing/saml-idp.js";
import { memoryReplayStore } from "./replay.js";
import { SamlRefusal } from "./service-provider.js";
import { type SamlProviderRef, type SamlSignInDeps, completeSamlSignIn, memorySamlRequestStore, SAML_REQUEST_TTL_MS, startSamlSignIn } from "./sign-in.js";
import { samlSettingsFromInput, serviceProviderUrls } from "./settings.js";

const BASE = "https://auth.example.test/api/auth";
const ALICE = { nameId: "alice@acme.test", email: "alice@acme.test", name: "Alice Example" };
const AFTER = { callbackUrl: "/dashboard", errorCallbackUrl: null, newUserCallbackUrl: null };

let idp: TestSamlIdp;
let acme: SamlProviderRef;
let globex: SamlProviderRef;

beforeAll(async () => {
  idp = await createSamlIdp();
  const saml = await samlSettingsFromInput(
    { idpMetadata: { metadata: idp.metadataXml() } },
    { issuer: "x", previous: null, fetchMetadata: () => Promise.reject(new Error("no fetch")) },
  );
  acme = { providerId: "acme", saml };
  globex = { providerId: "globex", saml };
});

function deps(clock = { now: new Date() }): SamlSignInDeps {
  return { requests: memorySamlRequestStore(), replays: memoryReplayStore(), now: () => clock.now, authBaseUrl: BASE };
}

/** The browser's trip: our redirect to the IdP, and the IdP's answer posted back with the RelayState. */
async function roundTrip(d: SamlSignInDeps, provider: SamlProviderRef) {
  const { redirectUrl } = await startSamlSignIn(d, provider, AFTER);
  const request = await idp.readAuthnRequest(redirectUrl);
  const samlResponse = await idp.response({ sp: serviceProviderUrls(BASE, provider.providerId), user: ALICE, inResponseTo: request.requestId });
  return { samlResponse, relayState: request.relayState };
}

async function reason(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SamlRefusal);
  return (error as SamlRefusal).reason;
}

describe("SAML sign-in", () => {
  it("goes to the IdP and comes back with the user's profile and where to go after", async () => {
    const d = deps();
    const { samlResponse, relayState } = await roundTrip(d, acme);
    const done = await completeSamlSignIn(d, acme, { samlResponse, relayState });
    expect(done.profile).toEqual({ accountId: ALICE.nameId, email: ALICE.email, emailVerified: true, name: ALICE.name });
    expect(done.request).toMatchObject({ providerId: "acme", callbackUrl: "/dashboard" });
  });

  it("refuses the same response twice, even with its RelayState gone", async () => {
    const d = deps();
    const trip = await roundTrip(d, acme);
    await completeSamlSignIn(d, acme, trip);
    expect(await reason(completeSamlSignIn(d, acme, trip))).toBe("in_response_to");
    expect(await reason(completeSamlSignIn(d, { ...acme, saml: { ...acme.saml, allowIdpInitiated: true } }, trip))).toBe("in_response_to");
  });

  it("refuses a response posted to another provider's ACS than the one the sign-in started with", async () => {
    const d = deps();
    const trip = await roundTrip(d, acme);
    expect(await reason(completeSamlSignIn(d, globex, trip))).toBe("in_response_to");
  });

  it("refuses a response whose RelayState is another browser's request", async () => {
    const d = deps();
    const mine = await roundTrip(d, acme);
    const theirs = await roundTrip(d, acme);
    expect(await reason(completeSamlSignIn(d, acme, { samlResponse: mine.samlResponse, relayState: theirs.relayState }))).toBe("in_response_to");
  });

  it("forgets a request after ten minutes", async () => {
    const clock = { now: new Date() };
    const d = deps(clock);
    const { redirectUrl } = await startSamlSignIn(d, acme, AFTER);
    const request = await idp.readAuthnRequest(redirectUrl);
    clock.now = new Date(clock.now.getTime() + SAML_REQUEST_TTL_MS + 1);
    // An assertion the IdP makes only now, valid then: only the request's age refuses it.
    const samlResponse = await idp.response({
      sp: serviceProviderUrls(BASE, "acme"),
      user: ALICE,
      inResponseTo: request.requestId,
      notBefore: clock.now,
      notOnOrAfter: new Date(clock.now.getTime() + 60_000),
    });
    const trip = { samlResponse, relayState: request.relayState };
    expect(await reason(completeSamlSignIn(d, acme, trip))).toBe("in_response_to");
  });

  it("takes an IdP-initiated response only from a provider that enables it, once", async () => {
    const d = deps();
    const samlResponse = await idp.response({ sp: serviceProviderUrls(BASE, "acme"), user: ALICE, inResponseTo: null });
    expect(await reason(completeSamlSignIn(d, acme, { samlResponse, relayState: null }))).toBe("idp_initiated");
    const open = { ...acme, saml: { ...acme.saml, allowIdpInitiated: true } };
    await expect(completeSamlSignIn(d, open, { samlResponse, relayState: "https://app.example.test/" })).resolves.toMatchObject({ request: null });
    expect(await reason(completeSamlSignIn(d, open, { samlResponse, relayState: null }))).toBe("replay");
  });
});
