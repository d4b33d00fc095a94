/** The addresses an organization's admin types in: public HTTPS only, unless the operator allows private ones. */
import { describe, expect, it } from "vitest";
import { errorCode } from "../../../../testing/error-code.js";
import { checkOutboundUrl, isPrivateAddress } from "./outbound.js";

describe("outbound addresses", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "::",
    "fd00::1",
    "fe80::1",
    "::ffff:127.0.0.1",
  ])("%s is private", (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(["8.8.8.8", "172.32.0.1", "2001:4860:4860::8888", "::ffff:1.1.1.1"])("%s is public", (address) => expect(isPrivateAddress(address)).toBe(false));

  it("refuses plain HTTP, credentials in the URL and private addresses; allows them all when told to", async () => {
    for (const url of [
      "http://8.8.8.8/.well-known/openid-configuration",
      "https://user:pw@8.8.8.8/",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/",
      "https://localhost/",
      "ftp://8.8.8.8/",
      "not a url",
    ]) {
      expect(await errorCode(checkOutboundUrl(url, false)), url).toBe("INVALID_OIDC_CONFIGURATION");
    }
    expect((await checkOutboundUrl("https://8.8.8.8/x", false)).href).toBe("https://8.8.8.8/x");
    expect((await checkOutboundUrl("http://127.0.0.1:8080/x", true)).href).toBe("http://127.0.0.1:8080/x");
  });
});
