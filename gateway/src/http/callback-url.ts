/**
 * The one resolver for callback URLs (callbackURL, redirectTo, errorCallbackURL, newUserCallbackURL): a
 * value is resolved against the app origin with the WHATWG URL parser, the parser browsers use, and is
 * accepted only when the result is http(s) on a trusted origin. Every Location and every callback handed
 * on (mail links, the sign-in `url`) is then written from the resolved URL object, never from the string
 * the client sent, so `/.//evil.example`, `/%2e//evil.example` or `/\t/evil.example` cannot turn into a
 * protocol-relative `//evil.example` on the way out.
 */
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import { isTrustedOrigin } from "./origins.js";

/** The callback-like fields (docs/http-api.md#origin-and-callback-urls), and the error each answers when untrusted. */
export const CALLBACK_FIELDS = {
  callbackURL: "INVALID_CALLBACKURL",
  redirectTo: "INVALID_REDIRECTURL",
  errorCallbackURL: "INVALID_ERRORCALLBACKURL",
  newUserCallbackURL: "INVALID_NEWUSERCALLBACKURL",
} as const satisfies Record<string, ErrorCode>;

export type CallbackField = keyof typeof CALLBACK_FIELDS;

export interface RedirectPolicy {
  /** Where relative values resolve: AUTH_APP_URL's origin, else the base URL's origin. */
  appOrigin: string;
  /** The origin a browser resolves a relative Location against: the gateway's own (the base URL's). */
  selfOrigin: string;
  /** Trusted origin patterns (origins.ts); the app origin and the gateway's own are among them. */
  trusted: string[];
}

/** C0 controls, DEL and the C1 range: no URL a client means to send holds them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A callback URL that passed the resolver; the only thing a redirect can be built from. */
export class CallbackUrl {
  private constructor(
    private readonly url: URL,
    /** Set when the client sent a relative reference: its Location may then be a path on this origin. */
    private readonly pathOrigin: string | undefined,
  ) {}

  /** The resolved URL when it is http(s) on a trusted origin without credentials; otherwise null. */
  static resolve(value: string, policy: RedirectPolicy): CallbackUrl | null {
    if (CONTROL.test(value)) return null;
    let url: URL;
    try {
      url = new URL(value, `${policy.appOrigin}/`);
    } catch {
      return null;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    if (url.username || url.password) return null;
    if (!isTrustedOrigin(url.origin, policy.trusted)) return null;
    return new CallbackUrl(url, URL.canParse(value) ? undefined : policy.selfOrigin);
  }

  /**
   * The Location value with `params` set in the query. A relative callback that resolved onto the gateway's
   * own origin stays a path (as better-auth answers it), unless the path starts with `//`, which a browser
   * would read as another host; everything else is the absolute URL.
   */
  location(params: Record<string, string> = {}): string {
    const url = new URL(this.url.href);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    if (url.origin === this.pathOrigin && !url.pathname.startsWith("//")) return `${url.pathname}${url.search}${url.hash}`;
    return url.href;
  }

  toString(): string {
    return this.location();
  }

  /** The absolute URL (what is handed to another service, which has no origin to resolve a path against). */
  get href(): string {
    return this.url.href;
  }
}

export type ResolvedCallbacks = Partial<Record<CallbackField, CallbackUrl>>;

/**
 * Resolves each callback field of one source (a body or a query); throws the field's catalogue error (403)
 * when a value is not a string or not trusted. Absent, null and empty fields are absent.
 */
export function resolveCallbacks(source: Record<string, unknown> | undefined, policy: RedirectPolicy): ResolvedCallbacks {
  const resolved: ResolvedCallbacks = {};
  if (!source || typeof source !== "object") return resolved;
  for (const [field, code] of Object.entries(CALLBACK_FIELDS) as Array<[CallbackField, ErrorCode]>) {
    const value = source[field];
    if (value === undefined || value === null || value === "") continue;
    const url = typeof value === "string" ? CallbackUrl.resolve(value, policy) : null;
    if (!url) throw new AuthError(code);
    resolved[field] = url;
  }
  return resolved;
}
