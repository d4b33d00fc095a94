import { symmetricEncrypt } from "better-auth-1.7/crypto";
import { describe, expect, it } from "vitest";
import { hchacha20, openBetterAuthValue } from "./better-auth-cipher.js";

describe("opening better-auth's encrypted values", () => {
  it("derives the HChaCha20 subkey of the XChaCha20 draft's test vector (§2.2.1)", () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
    const nonce = Buffer.from("000000090000004a0000000031415927", "hex");
    expect(hchacha20(key, nonce).toString("hex")).toBe("82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc");
  });

  it("opens what better-auth encrypted with its secret, and nothing else", async () => {
    const sealed = await symmetricEncrypt({ key: "the-old-secret", data: "JBSWY3DPEHPK3PXP" });
    expect(openBetterAuthValue({ secret: "the-old-secret" }, sealed)).toBe("JBSWY3DPEHPK3PXP");
    expect(() => openBetterAuthValue({ secret: "another-secret" }, sealed)).toThrow();
    const flipped = `${sealed.slice(0, -1)}${sealed.endsWith("0") ? "1" : "0"}`;
    expect(() => openBetterAuthValue({ secret: "the-old-secret" }, flipped)).toThrow();
  });

  it("opens a versioned envelope with the secret of its version", async () => {
    const sealed = await symmetricEncrypt({ key: { keys: new Map([[2, "second-secret"]]), currentVersion: 2 } as never, data: "a token" });
    expect(sealed.startsWith("$ba$2$")).toBe(true);
    expect(openBetterAuthValue({ secret: "", versions: new Map([[2, "second-secret"]]) }, sealed)).toBe("a token");
    expect(() => openBetterAuthValue({ secret: "second-secret" }, sealed)).toThrow(/version 2/);
  });
});
