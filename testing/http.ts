/** A tiny HTTP client for tests: JSON in and out, and a cookie jar like a browser's. */

export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Cookies as a browser keeps them: set by Set-Cookie, dropped by Max-Age=0 or an empty value. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  store(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

export class TestClient {
  private readonly jar = new CookieJar();
  readonly cookies = this.jar.cookies;
  constructor(
    readonly baseURL: string,
    readonly defaultHeaders: Record<string, string> = {},
  ) {}

  cookieHeader(): string {
    return this.jar.header();
  }

  async request<T = any>(method: string, path: string, options: { json?: unknown; body?: string; headers?: Record<string, string> } = {}): Promise<JsonResponse<T>> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    if (this.cookies.size && !("cookie" in headers)) headers.cookie = this.cookieHeader();
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(this.baseURL + path, { method, headers, body, redirect: "manual" });
    this.jar.store(res.headers);
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json")) parsed = text ? JSON.parse(text) : null;
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, { headers });
  }

  post<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>("POST", path, { json: json ?? {}, headers });
  }
}

let counter = 0;
/** A unique email for a test user. */
export function uniqueEmail(label = "user"): string {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}@example.com`;
}
