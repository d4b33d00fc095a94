/**
 * Which addresses an outbound request typed in by an operator or customer may not reach: the platform's own
 * network. Shared by sso's discovery fetches and notification's webhook deliveries (docs/adr/0077-signed-webhooks.md).
 */
import { isIP } from "node:net";

/** Whether an IP address is loopback, private, link-local, unique-local, CGNAT or unspecified. */
export function isPrivateAddress(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split(".").map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  const v6 = address.toLowerCase();
  return v6 === "::" || v6 === "::1" || v6.startsWith("fc") || v6.startsWith("fd") || v6.startsWith("fe80") || v6.startsWith("ff");
}
