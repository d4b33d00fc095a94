/**
 * The outbound HTTP of social sign-in : form-encoded token requests and bearer
 * user-info reads, each bounded by a timeout. A provider's answer is never trusted to be JSON of the
 * right shape: callers read fields defensively.
 */

export class ProviderHttpError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ProviderHttpError";
  }
}

export type Json = Record<string, unknown>;

export interface ProviderHttp {
  /** POST application/x-www-form-urlencoded, JSON answer (throws on a non-2xx status). */
  postForm(url: string, form: Record<string, string | undefined>, headers?: Record<string, string>): Promise<Json>;
  /** GET (or POST without body) with `Authorization: Bearer <token>`, JSON answer. */
  getJson(url: string, accessToken: string, options?: { method?: "GET" | "POST"; headers?: Record<string, string> }): Promise<Json>;
  /** GET with a bearer token, the body as bytes with its content type; null on a 404 (no photo). */
  getBytes(url: string, accessToken: string): Promise<{ contentType: string; bytes: Buffer } | null>;
}

export function providerHttp(timeoutMs: number, fetchImpl: typeof fetch = fetch): ProviderHttp {
  async function send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetchImpl(url, { ...init, redirect: "error", signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new ProviderHttpError(`request to ${new URL(url).origin} failed: ${(error as Error).message}`);
    }
  }
  async function json(res: Response, url: string): Promise<Json> {
    const text = await res.text();
    if (!res.ok) throw new ProviderHttpError(`${new URL(url).origin}${new URL(url).pathname} answered ${res.status}`, res.status);
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Json;
      if (Array.isArray(parsed)) return { items: parsed };
    } catch {
      // GitHub answers form-encoded token responses to clients that do not ask for JSON.
      const form = new URLSearchParams(text);
      if ([...form.keys()].length) return Object.fromEntries(form);
    }
    throw new ProviderHttpError(`${new URL(url).origin} answered something other than JSON`);
  }
  return {
    async postForm(url, form, headers = {}) {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(form)) if (value !== undefined) body.set(name, value);
      const res = await send(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", ...headers },
        body,
      });
      return json(res, url);
    },
    async getJson(url, accessToken, options = {}) {
      const res = await send(url, {
        method: options.method ?? "GET",
        headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", "user-agent": "auth-platform", ...options.headers },
      });
      return json(res, url);
    },
    async getBytes(url, accessToken) {
      const res = await send(url, { headers: { authorization: `Bearer ${accessToken}` } });
      if (res.status === 404) return null;
      if (!res.ok) throw new ProviderHttpError(`${new URL(url).origin} answered ${res.status}`, res.status);
      return { contentType: res.headers.get("content-type") ?? "image/jpeg", bytes: Buffer.from(await res.arrayBuffer()) };
    },
  };
}

/** A string field, or undefined. */
export const str = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined);
/** A boolean that providers send as true or "true". */
export const flag = (value: unknown): boolean => value === true || value === "true";
/** A nested object field, or an empty object. */
export const obj = (value: unknown): Json => (value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {});
