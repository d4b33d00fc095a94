/**
 * The addresses the sso service fetches are typed in by an organization's admin (a discovery URL, the
 * endpoints it names), so each is checked before it is fetched: HTTPS to a public address only, unless the
 * operator allowed private addresses (SSO_ALLOW_PRIVATE_ADDRESSES: tests, an IdP on the LAN). Without the
 * check, registering a provider would let a customer make the platform read its own network
 * (docs/adr/0067-the-sso-service.md).
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { AuthError } from "@auth-platform/proto/errors";
import { isPrivateAddress } from "@auth-platform/runtime/private-address";

export { isPrivateAddress };

/** Refuses (INVALID_OIDC_CONFIGURATION) an address the service may not fetch. */
export async function checkOutboundUrl(url: string, allowPrivate: boolean): Promise<URL> {
  if (!URL.canParse(url)) throw new AuthError("INVALID_OIDC_CONFIGURATION", "the URL is not an absolute URL");
  const parsed = new URL(url);
  if (parsed.username || parsed.password) throw new AuthError("INVALID_OIDC_CONFIGURATION", "the URL must not carry credentials");
  if (allowPrivate) {
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new AuthError("INVALID_OIDC_CONFIGURATION", "the URL must be an https: URL");
    return parsed;
  }
  if (parsed.protocol !== "https:") throw new AuthError("INVALID_OIDC_CONFIGURATION", "the URL must be an https: URL");
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw new AuthError("INVALID_OIDC_CONFIGURATION", "the URL's host does not resolve");
  }
  if (!addresses.length || addresses.some(isPrivateAddress)) throw new AuthError("INVALID_OIDC_CONFIGURATION", "the URL must lead to a public address");
  return parsed;
}
