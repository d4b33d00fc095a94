import { beforeAll, describe, expect, it } from "vitest";
import { createSamlIdp, type TestSamlIdp } from "../../../../testing/saml-idp.js";
import { samlConfigMessage, samlInputFromMessage } from "./messages.js";
import { samlProfile } from "./profile.js";
import type { SamlAssertion } from "./service-provider.js";
import { DEFAULT_SAML_MAPPING, providerSettings, readSamlSettings, samlSettingsFromInput, serviceProviderUrls } from "./settings.js";

const BASE = "https://auth.example.test/api/auth";
let idp: TestSamlIdp;
const noFetch = async (): Promise<string> => {
  throw new Error("no fetch expected");
};

beforeAll(async () => {
  idp = await createSamlIdp();
});

describe("SAML provider settings", () => {
  it("come from pasted metadata, fetched metadata, or entry point and certificate", async () => {
    const fromXml = await samlSettingsFromInput({ idpMetadata: { metadata: idp.metadataXml() } }, { issuer: "ignored", previous: null, fetchMetadata: noFetch });
    expect(fromXml).toMatchObject({ idpEntityId: idp.entityId, ssoUrl: idp.ssoUrl, metadataUrl: null, allowIdpInitiated: false, mapping: DEFAULT_SAML_MAPPING });
    expect(fromXml.certificates).toHaveLength(1);

    const fetched: string[] = [];
    const fromUrl = await samlSettingsFromInput(
      { metadataUrl: "https://idp.example.test/metadata" },
      {
        issuer: "ignored",
        previous: null,
        fetchMetadata: async (url) => {
          fetched.push(url);
          return idp.metadataXml();
        },
      },
    );
    expect(fetched).toEqual(["https://idp.example.test/metadata"]);
    expect(fromUrl).toMatchObject({ idpEntityId: idp.entityId, metadataUrl: "https://idp.example.test/metadata" });

    const byHand = await samlSettingsFromInput(
      { entryPoint: "https://idp.example.test/sso", cert: idp.certificates()[0], allowIdpInitiated: true, mapping: { email: "mail" } },
      { issuer: "https://idp.example.test/entity", previous: null, fetchMetadata: noFetch },
    );
    expect(byHand).toMatchObject({
      idpEntityId: "https://idp.example.test/entity",
      ssoUrl: "https://idp.example.test/sso",
      allowIdpInitiated: true,
      mapping: { email: "mail", name: "name" },
    });
    expect(readSamlSettings(JSON.parse(JSON.stringify(byHand)))).toEqual(byHand);
  });

  it("keep on update what the input leaves out, and take a second certificate for a rotation", async () => {
    const previous = await samlSettingsFromInput({ idpMetadata: { metadata: idp.metadataXml() } }, { issuer: "x", previous: null, fetchMetadata: noFetch });
    const flipped = await samlSettingsFromInput({ allowIdpInitiated: true }, { issuer: "x", previous, fetchMetadata: noFetch });
    expect(flipped).toEqual({ ...previous, allowIdpInitiated: true });
    const rotating = await createSamlIdp();
    await rotating.rotate();
    const both = await samlSettingsFromInput({ cert: rotating.certificates() }, { issuer: "x", previous, fetchMetadata: noFetch });
    expect(both.certificates).toHaveLength(2);
    expect(both.ssoUrl).toBe(previous.ssoUrl);
  });

  it("refuse input that names no IdP, a missing entry point, or a third certificate", async () => {
    const rotating = await createSamlIdp();
    await rotating.rotate();
    await rotating.rotate();
    for (const input of [{}, { cert: idp.certificates() }, { entryPoint: "https://idp.example.test/sso", cert: rotating.certificates() }]) {
      await expect(samlSettingsFromInput(input, { issuer: "x", previous: null, fetchMetadata: noFetch })).rejects.toMatchObject({ code: "INVALID_SAML_METADATA" });
    }
  });

  it("derive our entity ID, ACS and metadata URLs per provider", () => {
    expect(serviceProviderUrls("https://auth.example.test/api/auth/", "acme corp")).toEqual({
      entityId: "https://auth.example.test/api/auth/sso/saml2/sp/metadata?providerId=acme%20corp",
      metadataUrl: "https://auth.example.test/api/auth/sso/saml2/sp/metadata?providerId=acme%20corp",
      acsUrl: "https://auth.example.test/api/auth/sso/saml2/sp/acs/acme%20corp",
    });
  });

  it("refuse a stored column that is not SAML settings", () => {
    expect(() => readSamlSettings({ idpEntityId: "x" })).toThrow();
  });

  it("give the service provider settings of a provider", async () => {
    const stored = await samlSettingsFromInput({ idpMetadata: { metadata: idp.metadataXml() } }, { issuer: "x", previous: null, fetchMetadata: noFetch });
    expect(providerSettings("https://auth.example.test/api/auth", "acme", stored)).toMatchObject({
      providerId: "acme",
      acsUrl: "https://auth.example.test/api/auth/sso/saml2/sp/acs/acme",
      idp: { entityId: idp.entityId },
      allowIdpInitiated: false,
    });
  });
});

describe("SAML profile", () => {
  const assertion = (nameId: string, attributes: Record<string, string | string[]>): SamlAssertion => ({
    assertionId: "_a",
    issuer: "idp",
    nameId,
    nameIdFormat: null,
    attributes,
    sessionIndex: null,
    notOnOrAfter: new Date(),
    inResponseTo: null,
  });

  it("reads the email from the mapped attribute, else an email-shaped NameID", () => {
    expect(samlProfile(assertion("00u1", { email: "Alice@Acme.test", name: "Alice" }), DEFAULT_SAML_MAPPING)).toEqual({
      accountId: "00u1",
      email: "alice@acme.test",
      emailVerified: true,
      name: "Alice",
    });
    expect(samlProfile(assertion("bob@acme.test", { firstName: "Bob", lastName: "Jones" }), DEFAULT_SAML_MAPPING)).toMatchObject({ email: "bob@acme.test", name: "Bob Jones" });
    expect(samlProfile(assertion("carol@acme.test", { verified: "true" }), { ...DEFAULT_SAML_MAPPING, emailVerified: "verified" }).emailVerified).toBe(true);
    // A mapped attribute the assertion leaves out, or says no: not verified.
    expect(samlProfile(assertion("carol@acme.test", {}), { ...DEFAULT_SAML_MAPPING, emailVerified: "verified" }).emailVerified).toBe(false);
    expect(samlProfile(assertion("carol@acme.test", { verified: "false" }), { ...DEFAULT_SAML_MAPPING, emailVerified: "verified" }).emailVerified).toBe(false);
  });

  it("refuses an assertion that gives no email", () => {
    expect(() => samlProfile(assertion("00u1", {}), DEFAULT_SAML_MAPPING)).toThrow(expect.objectContaining({ code: "INVALID_SAML_RESPONSE" }));
    expect(() => samlProfile(assertion("00u1", { email: "not an email" }), DEFAULT_SAML_MAPPING)).toThrow(expect.objectContaining({ code: "INVALID_SAML_RESPONSE" }));
  });
});

describe("SAML settings as messages", () => {
  it("read the input message as the samlConfig input, and answer the settings with our SP values", async () => {
    const input = samlInputFromMessage({ idpMetadataXml: idp.metadataXml(), certificates: [], allowIdpInitiated: true, mapping: { email: "mail" } });
    expect(input).toEqual({ idpMetadata: { metadata: idp.metadataXml() }, allowIdpInitiated: true, mapping: { email: "mail" } });
    expect(samlInputFromMessage({ entryPoint: "https://idp.example.test/sso", idpEntityId: "urn:idp", certificates: ["A", "B"] })).toEqual({
      entryPoint: "https://idp.example.test/sso",
      idpMetadata: { entityID: "urn:idp" },
      cert: ["A", "B"],
    });
    const stored = await samlSettingsFromInput(input, { issuer: "x", previous: null, fetchMetadata: noFetch });
    expect(samlConfigMessage(BASE, "acme", stored)).toMatchObject({
      idpEntityId: idp.entityId,
      allowIdpInitiated: true,
      mapping: { email: "mail", emailVerified: undefined },
      spEntityId: `${BASE}/sso/saml2/sp/metadata?providerId=acme`,
      acsUrl: `${BASE}/sso/saml2/sp/acs/acme`,
      spMetadataUrl: `${BASE}/sso/saml2/sp/metadata?providerId=acme`,
    });
  });
});
