/**
 * Where to go after signing in: only a path on this origin ("/account?tab=x"), never another host. A
 * value that is absolute, protocol-relative ("//evil.example", "/\\evil.example") or carries control
 * characters falls back to the default.
 */
export function safeRedirect(value: unknown, fallback = "/account"): string {
  if (typeof value !== "string" || !value.startsWith("/")) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a control character in the path refuses it.
  if (value.startsWith("//") || value.startsWith("/\\") || /[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  const url = new URL(value, "http://app.invalid");
  // Dot segments and escapes are resolved by the parser: "/.//evil.example" and "/%2e//evil.example" come
  // out as the path "//evil.example", which is another host again once followed as a URL.
  if (url.origin !== "http://app.invalid" || url.pathname.startsWith("//")) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
