/**
 * A fetch that behaves like a browser tab on the gateway's origin, for the better-auth client: it keeps
 * its cookies, names its Origin on unsafe methods, never follows a redirect on its own (a 302 comes back
 * to the caller), and records every exchange so a test can check what the client really sent.
 */
import { CookieJar } from "./http.js";

export interface Exchange {
  method: string;
  url: string;
  body: string | undefined;
  status: number;
  location: string | null;
}

export function browserFetch(origin: string) {
  const jar = new CookieJar();
  const exchanges: Exchange[] = [];
  const customFetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers);
    if (jar.cookies.size) headers.set("cookie", jar.header());
    const method = (init?.method ?? "GET").toUpperCase();
    if (method !== "GET" && method !== "HEAD") headers.set("origin", origin);
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    jar.store(res.headers);
    exchanges.push({ method, url, body: typeof init?.body === "string" ? init.body : undefined, status: res.status, location: res.headers.get("location") });
    return res;
  };
  return { cookies: jar.cookies, exchanges, customFetchImpl };
}
