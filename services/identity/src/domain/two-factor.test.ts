import { describe, expect, it } from "vitest";
import { base32Decode, totpCode, totpStep } from "./totp.js";
import { aSignedUpUser, testRegistry } from "../../test/test-registry.js";
import { enableTwoFactor, generateBackupCodes, verifySignedInUser } from "./two-factor.js";

const KEY_A = Buffer.alloc(32, 7).toString("base64");
const KEY_B = Buffer.alloc(32, 9).toString("base64");
const codeFor = (uri: string, at: Date) => totpCode(base32Decode(new URL(uri).searchParams.get("secret")!), totpStep(at));

describe("two-factor enrolment", () => {
  it("the secret is stored sealed, never in the clear; the first code activates two-factor and drops cached users", async () => {
    const deps = testRegistry();
    const { user, password } = await aSignedUpUser(deps);
    const { totpUri, backupCodes } = await enableTwoFactor(deps, { userId: user.id, password });
    const secret = new URL(totpUri).searchParams.get("secret")!;
    const stored = (await deps.store.findTwoFactor(user.id))!;
    expect(stored.secret).not.toContain(secret);
    expect(stored.secret).not.toContain(base32Decode(secret).toString("base64url"));
    expect(backupCodes).toHaveLength(10);
    expect((await deps.store.findUserById(user.id))!.twoFactorEnabled).toBe(false);

    const activated = await verifySignedInUser(deps, { userId: user.id, method: "totp", code: codeFor(totpUri, deps.now()) });
    expect(activated.twoFactorEnabled).toBe(true);
    expect(deps.sessions.forgotten).toContain(user.id);
  });

  it("a one-step-old code is accepted, a two-step-old one refused, and a used code never again", async () => {
    const deps = testRegistry();
    const { user, password } = await aSignedUpUser(deps);
    const { totpUri } = await enableTwoFactor(deps, { userId: user.id, password });
    const verify = (code: string) => verifySignedInUser(deps, { userId: user.id, method: "totp", code });
    const old = codeFor(totpUri, new Date(deps.now().getTime() - 60_000));
    await expect(verify(old)).rejects.toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    const oneStepOld = codeFor(totpUri, new Date(deps.now().getTime() - 30_000));
    await expect(verify(oneStepOld)).resolves.toBeDefined();
    await expect(verify(oneStepOld)).rejects.toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    const current = codeFor(totpUri, deps.now());
    await expect(verify(current)).resolves.toBeDefined();
    await expect(verify(current)).rejects.toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
  });

  it("a wrong password changes nothing; backup codes need two-factor active", async () => {
    const deps = testRegistry();
    const { user, password } = await aSignedUpUser(deps);
    await expect(enableTwoFactor(deps, { userId: user.id, password: "wrong-password" })).rejects.toMatchObject({ code: "INVALID_PASSWORD" });
    expect(await deps.store.findTwoFactor(user.id)).toBeNull();
    await expect(generateBackupCodes(deps, { userId: user.id, password })).rejects.toMatchObject({ code: "TWO_FACTOR_ISNT_ENABLED" });
  });

  it("key rotation: a secret sealed under the old key still verifies, and is resealed under the new one", async () => {
    const before = testRegistry({ IDENTITY_TWO_FACTOR_KEYS: `a:${KEY_A}` });
    const { user, password } = await aSignedUpUser(before);
    const { totpUri } = await enableTwoFactor(before, { userId: user.id, password });
    expect((await before.store.findTwoFactor(user.id))!.secret.startsWith("a.")).toBe(true);

    const after = { ...before, config: testRegistry({ IDENTITY_TWO_FACTOR_KEYS: `b:${KEY_B},a:${KEY_A}` }).config };
    await verifySignedInUser(after, { userId: user.id, method: "totp", code: codeFor(totpUri, after.now()) });
    expect((await after.store.findTwoFactor(user.id))!.secret.startsWith("b.")).toBe(true);
    // Now the old key can go.
    const onlyNew = { ...before, config: testRegistry({ IDENTITY_TWO_FACTOR_KEYS: `b:${KEY_B}` }).config };
    after.advance(30_000);
    await expect(verifySignedInUser(onlyNew, { userId: user.id, method: "totp", code: codeFor(totpUri, onlyNew.now()) })).resolves.toBeDefined();
  });
});
