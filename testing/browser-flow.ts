/**
 * A browser's part in a redirect flow, without a browser: follows Location headers across the gateway and
 * an identity provider with one cookie jar (cookies are per host, as a browser keeps them for loopback),
 * and stops at the first URL that is neither (the app's page the flow ends on).
 */
import { CookieJar } from "./http.js";

export interface FlowEnd {
  /** The URL the flow landed on (not requested). */
  url: URL;
  /** Every URL requested, in order. */
  visited: string[];
}

export class BrowserFlow {
  readonly jar = new CookieJar();
  constructor(private readonly followed: (url: URL) => boolean) {}

  /** Sends one request with the jar's cookies; stores the cookies it answers. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.cookies.size) headers.set("cookie", this.jar.header());
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    this.jar.store(res.headers);
    return res;
  }

  /** Follows redirects from `start` until a URL outside the followed hosts. */
  async follow(start: string, init: RequestInit = {}, limit = 15): Promise<FlowEnd> {
    const visited: string[] = [];
    let url = new URL(start);
    let next: RequestInit = init;
    for (let i = 0; i < limit; i++) {
      visited.push(url.href);
      const res = await this.request(url.href, next);
      await res.arrayBuffer();
      const location = res.headers.get("location");
      if (!location || res.status < 300 || res.status >= 400) throw new Error(`${url.href} answered ${res.status} without a redirect`);
      url = new URL(location, url);
      next = {};
      if (!this.followed(url)) return { url, visited };
    }
    throw new Error(`more than ${limit} redirects from ${start}`);
  }
}
