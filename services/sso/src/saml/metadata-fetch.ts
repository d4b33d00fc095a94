/**
 * Fetches an IdP's metadata from the URL an organization's admin typed. The address is checked first by
 * `checkUrl` (the service's outbound check: HTTPS to a public address unless private ones are allowed), a
 * redirect is not followed (it would lead past the check), and the body is read up to the metadata size
 * limit within a deadline. Any failure is INVALID_SAML_METADATA.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { MAX_SAML_METADATA_CHARS } from "./idp-metadata.js";
import type { MetadataFetcher } from "./settings.js";

export const METADATA_FETCH_TIMEOUT_MS = 5_000;

export function metadataFetcher(checkUrl: (url: string) => Promise<URL>, timeoutMs = METADATA_FETCH_TIMEOUT_MS): MetadataFetcher {
  return async (url) => {
    let checked: URL;
    try {
      checked = await checkUrl(url);
    } catch (cause) {
      throw new AuthError("INVALID_SAML_METADATA", "the metadata URL may not be fetched", { cause });
    }
    try {
      const response = await fetch(checked, {
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" },
      });
      if (response.status !== 200 || !response.body) throw new Error(`status ${response.status}`);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (text.length > MAX_SAML_METADATA_CHARS) {
          await reader.cancel();
          throw new Error("metadata too large");
        }
      }
      return text + decoder.decode();
    } catch (cause) {
      throw new AuthError("INVALID_SAML_METADATA", "the metadata URL did not answer metadata", { cause });
    }
  };
}
