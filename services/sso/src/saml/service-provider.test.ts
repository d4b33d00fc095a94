import { beforeAll, describe, expect, it } from "vitest";
import { createSamlIdp, type SamlResponseOptions, type TestSamlIdp } from "../../../../testing/saml-idp.js";
import { identityProviderSettings, parseIdentityProviderMetadata } from "./idp-metadata.js";
import { memoryReplayStore } from "./replay.js";
import { acceptSamlResponse, authnRequest, SAML_CLOCK_SKEW_MS, SamlRefusal, type SamlProviderSettings, serviceProviderMetadata, validateSamlResponse } from "./service-provider.js";

const ALICE = { nameId: "alice@acme.test", email: "alice@acme.test", name: "Alice Example" };
const MALLORY = { nameId: "mallory@acme.test", email: "mallory@acme.test" };

let idp: TestSamlIdp;
let settings: SamlProviderSettings;
const sp = { entityId: "https://auth.example.test/api/auth/sso/saml2/sp/metadata?providerId=acme", acsUrl: "https://auth.example.test/api/auth/sso/saml2/sp/acs/acme" };

beforeAll(async () => {
  idp = await createSamlIdp();
  settings = {
    providerId: "acme",
    spEntityId: sp.entityId,
    acsUrl: sp.acsUrl,
    idp: await parseIdentityProviderMetadata(idp.metadataXml()),
    allowIdpInitiated: false,
  };
});

/** A sign-in as our SP starts it: the AuthnRequest, and the IdP's answer to it. */
async function signIn(overrides: Partial<SamlResponseOptions> = {}, providerSettings = settings) {
  const { requestId, redirectUrl } = await authnRequest(providerSettings, "relay-1");
  const seen = await idp.readAuthnRequest(redirectUrl);
  const samlResponse = await idp.response({ sp, user: ALICE, inResponseTo: seen.requestId, ...overrides });
  return { requestId, samlResponse };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SamlRefusal);
  expect((error as SamlRefusal).code).toBe("INVALID_SAML_RESPONSE");
  return (error as SamlRefusal).reason;
}

describe("SAML service provider", () => {
  it("publishes SP metadata naming our entity ID and ACS URL and asking for signed assertions", async () => {
    const xml = await serviceProviderMetadata(settings);
    expect(xml).toContain(`entityID="${sp.entityId.replace("&", "&amp;")}"`);
    expect(xml).toContain(`Location="${sp.acsUrl}"`);
    expect(xml).toContain('WantAssertionsSigned="true"');
  });

  it("sends an AuthnRequest the IdP reads, naming us, our ACS URL and the RelayState", async () => {
    const { requestId, redirectUrl } = await authnRequest(settings, "relay-1");
    expect(redirectUrl.startsWith(`${idp.ssoUrl}?`)).toBe(true);
    const seen = await idp.readAuthnRequest(redirectUrl);
    expect(seen).toEqual({ requestId, relayState: "relay-1", issuer: sp.entityId, acsUrl: sp.acsUrl });
  });

  it("accepts the signed answer to our request and reads the subject and attributes", async () => {
    const { requestId, samlResponse } = await signIn();
    const assertion = await validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() });
    expect(assertion).toMatchObject({
      issuer: idp.entityId,
      nameId: ALICE.nameId,
      inResponseTo: requestId,
      attributes: { email: ALICE.email, name: ALICE.name },
    });
    expect(assertion.sessionIndex).toMatch(/^_session-/);
  });

  it("also accepts an assertion signed inside a signed Response", async () => {
    const { requestId, samlResponse } = await signIn({ sign: "both" });
    await expect(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() })).resolves.toMatchObject({ nameId: ALICE.nameId });
  });

  describe("refuses", () => {
    it("an unsigned response", async () => {
      const { requestId, samlResponse } = await signIn({ sign: "none" });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("signature");
    });

    it("a response signed only at the Response level: the assertion itself must be signed", async () => {
      const { requestId, samlResponse } = await signIn({ sign: "response" });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("assertion_not_signed");
    });

    it("an assertion signed with a key the IdP does not publish", async () => {
      const { requestId, samlResponse } = await signIn({ foreignKey: true });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("signature");
    });

    for (const [placement, reason] of [
      ["before", "assertion_count"],
      ["after", "assertion_count"],
      ["nested", "wrapping"],
    ] as const) {
      it(`signature wrapping: a forged unsigned assertion placed ${placement} the signed one`, async () => {
        const { requestId, samlResponse } = await signIn({ user: MALLORY, wrap: { placement, victim: ALICE } });
        expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe(reason);
      });
    }

    it("an assertion for another audience", async () => {
      const { requestId, samlResponse } = await signIn({ audience: "https://other-sp.example.test" });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("audience");
    });

    it("an assertion for another recipient", async () => {
      const { requestId, samlResponse } = await signIn({ recipient: "https://evil.example.test/acs" });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("recipient");
    });

    it("a response sent to another destination", async () => {
      const { requestId, samlResponse } = await signIn({ destination: "https://evil.example.test/acs" });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("destination");
    });

    it("a response made for another provider of ours (its audience and recipient)", async () => {
      const other = { entityId: sp.entityId.replace("acme", "globex"), acsUrl: sp.acsUrl.replace("acme", "globex") };
      const { requestId, samlResponse } = await signIn({ sp: other });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("destination");
    });

    it("an assertion from another issuer", async () => {
      const { requestId, samlResponse } = await signIn({ issuer: "https://other-idp.example.test" });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("issuer");
    });

    it("a response whose status is not success", async () => {
      const { requestId, samlResponse } = await signIn({ status: "urn:oasis:names:tc:SAML:2.0:status:Requester" });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("status");
    });

    it("an expired assertion, beyond the clock skew", async () => {
      const { requestId, samlResponse } = await signIn();
      const later = (ms: number) => new Date(Date.now() + 5 * 60_000 + ms);
      // Within the skew it is still accepted (the IdP's clock may be behind ours).
      await expect(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: later(SAML_CLOCK_SKEW_MS - 5_000) })).resolves.toBeTruthy();
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: later(SAML_CLOCK_SKEW_MS + 5_000) }))).toBe("expired");
    });

    it("an assertion not valid yet, beyond the clock skew", async () => {
      const start = new Date(Date.now() + 10 * 60_000);
      const { requestId, samlResponse } = await signIn({ notBefore: start, notOnOrAfter: new Date(start.getTime() + 5 * 60_000) });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("not_yet_valid");
    });

    it("an answer to another request than the one this sign-in sent", async () => {
      const { samlResponse } = await signIn();
      const { requestId: other } = await authnRequest(settings, "relay-2");
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: other, now: new Date() }))).toBe("in_response_to");
    });

    it("an unsolicited response where a request was sent", async () => {
      const { requestId } = await authnRequest(settings, "relay-1");
      const samlResponse = await idp.response({ sp, user: ALICE, inResponseTo: null });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: requestId, now: new Date() }))).toBe("in_response_to");
    });

    it("an answer to a request presented where none was sent", async () => {
      const { samlResponse } = await signIn();
      const open = { ...settings, allowIdpInitiated: true };
      expect(await refusal(validateSamlResponse(open, { samlResponse, expectedRequestId: null, now: new Date() }))).toBe("in_response_to");
    });

    it("an IdP-initiated response unless the provider enables it", async () => {
      const samlResponse = await idp.response({ sp, user: ALICE, inResponseTo: null });
      expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: null, now: new Date() }))).toBe("idp_initiated");
      const open = { ...settings, allowIdpInitiated: true };
      await expect(validateSamlResponse(open, { samlResponse, expectedRequestId: null, now: new Date() })).resolves.toMatchObject({ nameId: ALICE.nameId, inResponseTo: null });
    });

    it("input that is not a SAML response", async () => {
      for (const samlResponse of ["", "not base64!", Buffer.from("<html/>").toString("base64"), "A".repeat(300 * 1024)]) {
        expect(await refusal(validateSamlResponse(settings, { samlResponse, expectedRequestId: null, now: new Date() }))).toBe("malformed");
      }
    });
  });

  it("accepts each assertion once", async () => {
    const replays = memoryReplayStore();
    const { requestId, samlResponse } = await signIn();
    const input = { samlResponse, expectedRequestId: requestId, now: new Date() };
    await expect(acceptSamlResponse(settings, input, replays)).resolves.toMatchObject({ nameId: ALICE.nameId });
    expect(await refusal(acceptSamlResponse(settings, input, replays))).toBe("replay");
    // The same assertion ID from the same IdP in a fresh response is the same assertion.
    const again = await signIn({ assertionId: (await validateSamlResponse(settings, input)).assertionId });
    expect(await refusal(acceptSamlResponse(settings, { ...input, samlResponse: again.samlResponse, expectedRequestId: again.requestId }, replays))).toBe("replay");
  });

  it("trusts both certificates while the IdP rotates its key, and only the new one once the old is retired", async () => {
    const rotating = await createSamlIdp();
    const before = { ...settings, idp: await parseIdentityProviderMetadata(rotating.metadataXml()) };
    const oldResponse = await rotating.response({ sp, user: ALICE, inResponseTo: null });
    await rotating.rotate();
    // The customer pastes the new metadata: both certificates, the new one first.
    const during = { ...before, allowIdpInitiated: true, idp: await parseIdentityProviderMetadata(rotating.metadataXml()) };
    expect(during.idp.certificates).toHaveLength(2);
    const newResponse = await rotating.response({ sp, user: ALICE, inResponseTo: null });
    await expect(validateSamlResponse(during, { samlResponse: oldResponse, expectedRequestId: null, now: new Date() })).resolves.toBeTruthy();
    await expect(validateSamlResponse(during, { samlResponse: newResponse, expectedRequestId: null, now: new Date() })).resolves.toBeTruthy();
    // Before the customer updated us, the new key was unknown.
    expect(await refusal(validateSamlResponse({ ...before, allowIdpInitiated: true }, { samlResponse: newResponse, expectedRequestId: null, now: new Date() }))).toBe("signature");
    rotating.retire();
    const after = { ...during, idp: await parseIdentityProviderMetadata(rotating.metadataXml()) };
    expect(await refusal(validateSamlResponse(after, { samlResponse: oldResponse, expectedRequestId: null, now: new Date() }))).toBe("signature");
  });
});

describe("IdP settings", () => {
  it("reads entity ID, SSO URL and certificate from metadata", async () => {
    expect(await parseIdentityProviderMetadata(idp.metadataXml())).toMatchObject({ entityId: idp.entityId, ssoUrl: idp.ssoUrl });
  });

  it("refuses metadata that is not an IdP's", async () => {
    for (const xml of ["", "<nope/>", "not xml at all", `<x>${"a".repeat(200 * 1024)}</x>`]) {
      await expect(parseIdentityProviderMetadata(xml)).rejects.toThrow(expect.objectContaining({ code: "INVALID_SAML_METADATA" }));
    }
  });

  it("refuses a hand-entered certificate that does not parse, a plain-HTTP entry point and a third certificate", () => {
    const certificate = idp.certificates()[0] as string;
    const good = { entityId: idp.entityId, ssoUrl: "https://idp.example.test/sso", certificates: [certificate] };
    expect(identityProviderSettings(good).certificates).toHaveLength(1);
    for (const bad of [
      { ...good, certificates: ["MIIBnotacertificate"] },
      { ...good, certificates: [] },
      { ...good, ssoUrl: "http://idp.example.test/sso" },
      { ...good, ssoUrl: "javascript:alert(1)" },
      { ...good, entityId: " " },
    ]) {
      expect(() => identityProviderSettings(bad)).toThrow(expect.objectContaining({ code: "INVALID_SAML_METADATA" }));
    }
  });
});

describe("the test IdP over HTTP", () => {
  it("answers our redirect with a form posting a response our SP accepts", async () => {
    const served = await createSamlIdp();
    await served.listen(() => ALICE);
    try {
      const live = { ...settings, idp: await parseIdentityProviderMetadata(served.metadataXml()) };
      const { requestId, redirectUrl } = await authnRequest(live, "relay-9");
      const page = await (await fetch(redirectUrl)).text();
      expect(page).toContain(`action="${sp.acsUrl}"`);
      expect(page).toContain('name="RelayState" value="relay-9"');
      const samlResponse = /name="SAMLResponse" value="([^"]+)"/.exec(page)?.[1] ?? "";
      await expect(validateSamlResponse(live, { samlResponse, expectedRequestId: requestId, now: new Date() })).resolves.toMatchObject({ nameId: ALICE.nameId });
    } finally {
      await served.stop();
    }
  });
});
