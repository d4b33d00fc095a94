/**
 * Known open-redirect bypasses, for an app on `app` (an http or https origin) and an attacker on
 * evil.example. `refused` must never be accepted as a callback URL; `staysOnApp` are accepted (they are
 * paths on the app once a browser's URL parser has read them) and their Location must stay on the app.
 * Shared by the resolver's unit test and the end-to-end redirect test.
 */
export function redirectCorpus(appOrigin: string): { refused: string[]; staysOnApp: string[] } {
  const app = new URL(appOrigin);
  const scheme = app.protocol.slice(0, -1);
  const otherScheme = scheme === "https" ? "http" : "https";
  const refused = [
    // Protocol-relative, with any number of slashes and backslashes.
    "//evil.example",
    "//evil.example/path?x=1",
    "///evil.example",
    "////evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "\\\\evil.example",
    "\\\\/evil.example",
    "/\\/evil.example",
    "//\\evil.example",
    // Tabs, newlines and carriage returns inside the slashes or the scheme (browsers drop them).
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r/evil.example",
    "\t//evil.example",
    "/\r\n/evil.example",
    `${scheme}:/\t/evil.example`,
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "\u0000//evil.example",
    "/\u0000/evil.example",
    // Other schemes, any case, with leading space.
    "javascript:alert(1)",
    "JaVaScRiPt:alert(document.domain)",
    " javascript:alert(1)",
    "javascript://%0aalert(1)",
    `javascript://${app.host}/%0aalert(1)`,
    "data:text/html,<script>alert(1)</script>",
    "DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    `ftp://${app.host}/`,
    // Absolute URLs elsewhere, mixed-case schemes and hosts.
    "http://evil.example",
    "https://evil.example/",
    "HTTPS://EVIL.EXAMPLE",
    "hTtP://evil.example",
    `${otherScheme}://${app.host}/`,
    `${otherScheme}:evil.example`,
    `${scheme}:/\\evil.example`,
    `${scheme}:\\\\evil.example`,
    `${scheme}:///evil.example`,
    `${scheme}://x@evil.example`,
    // Userinfo: the host is what follows the last @, and credentials are refused even on the app.
    `${scheme}://${app.host}@evil.example`,
    `${scheme}://${app.host}:443@evil.example`,
    `${scheme}://user:pass@${app.host}/`,
    `${scheme}://${app.host}%40evil.example`,
    `${scheme}://evil.example\\@${app.host}`,
    `${scheme}://evil.example#@${app.host}`,
    `${scheme}://evil.example?@${app.host}`,
    // Trusted-prefix and trailing-dot tricks, other ports.
    `${scheme}://${app.hostname}.evil.example`,
    `${scheme}://${app.host}.evil.example`,
    `${scheme}://${app.hostname}.evil.example${app.port ? `:${app.port}` : ""}/`,
    `${scheme}://evil.example/${app.host}`,
    `${scheme}://evil${app.hostname}`,
    `${scheme}://${app.hostname}./`,
    `${scheme}://${app.hostname}:1/`,
    // Unicode and fullwidth look-alikes that map to another host.
    `${scheme}://evil\u3002example`,
    `${scheme}://evil\uff0eexample/`,
    `${scheme}://evil.example\u2215.${app.hostname}`,
    `${scheme}://evil.example\uff0f.${app.hostname}`,
    // Encoded slashes in the authority.
    `${otherScheme}:%2f%2fevil.example`,
    `${scheme}://evil.example%2f${app.host}`,
  ];
  const staysOnApp = [
    // Dot segments, plain and encoded, that a naive rebuild turns into //evil.example.
    "/.//evil.example",
    "/..//evil.example",
    "/./..//evil.example",
    "/%2e//evil.example",
    "/%2E//evil.example",
    "/%2e%2e//evil.example",
    "/.%2e//evil.example",
    "/..\\/evil.example",
    // Encoded and double-encoded slashes and backslashes stay part of a path.
    "/%2f%2fevil.example",
    "%2f%2fevil.example",
    "/%5c/evil.example",
    "/%5C%5Cevil.example",
    "/%252f%252fevil.example",
    "/%252e//evil.example",
    // Unicode slashes are path characters, not separators.
    "/\u2215\u2215evil.example",
    "\uff0f\uff0fevil.example",
    `${scheme}:\uff0f\uff0fevil.example`,
    // A scheme the same as the app's without slashes is a relative reference.
    `${scheme}:evil.example`,
    // Ordinary relative callbacks.
    "/reset",
    "reset",
    "/a/../reset?next=//evil.example#//evil.example",
  ];
  return { refused, staysOnApp };
}
