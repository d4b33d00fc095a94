import { translate } from "./i18n";

/**
 * "Chrome on Linux" from a User-Agent header, in the reader's language: enough for a person to recognise
 * their own devices. Browser and system names are brands, the same in every language.
 */
export function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) return translate("account.unknownDevice");
  const ua = userAgent;
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /OPR\/|Opera/.test(ua)
      ? "Opera"
      : /Firefox\//.test(ua)
        ? "Firefox"
        : /Chrome\/|Chromium\/|CriOS\//.test(ua)
          ? "Chrome"
          : /Safari\//.test(ua)
            ? "Safari"
            : /curl\//.test(ua)
              ? "curl"
              : /node|undici/i.test(ua)
                ? "Node.js"
                : translate("account.unknownBrowser");
  const device = /iPhone/.test(ua)
    ? "iPhone"
    : /iPad/.test(ua)
      ? "iPad"
      : /Android/.test(ua)
        ? "Android"
        : /Windows/.test(ua)
          ? "Windows"
          : /Mac OS X|Macintosh/.test(ua)
            ? "macOS"
            : /CrOS/.test(ua)
              ? "ChromeOS"
              : /Linux/.test(ua)
                ? "Linux"
                : undefined;
  return device ? translate("account.browserOnDevice", { browser, device }) : browser;
}
