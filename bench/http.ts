/** HTTP requests of a benchmark's set-up (sign-ups, the cookie and the first answers), outside the measured load. */

export interface Captured {
  status: number;
  body: string;
  setCookie: string[];
}

export async function post(url: string, json: unknown, headers: Record<string, string> = {}): Promise<Captured> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(json) });
  return { status: res.status, body: await res.text(), setCookie: res.headers.getSetCookie() };
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<Captured> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.text(), setCookie: res.headers.getSetCookie() };
}

export function expectOk(what: string, response: Captured): Captured {
  if (response.status !== 200) throw new Error(`${what}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
  return response;
}

/** The Cookie header a browser would send back after these Set-Cookie lines. */
export function cookieHeader(setCookie: string[]): string {
  return setCookie
    .map((line) => line.split(";")[0]!.trim())
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

/**
 * Signs a user up (`POST <baseURL>/sign-up/email`) for a scenario's set-up; a 503 (hashing at capacity on a
 * busy machine) is tried again. `headers` go with every request (an Origin, for a server that wants one).
 */
export async function signUp(baseURL: string, email: string, password: string, headers: Record<string, string> = {}): Promise<Captured> {
  for (let attempt = 1; ; attempt++) {
    let response = await post(`${baseURL}/sign-up/email`, { name: "Bench User", email, password }, headers);
    // A 503 for the gRPC deadline may have come after the sign-up was done: then sign in instead.
    if (response.status === 422 && attempt > 1) response = await post(`${baseURL}/sign-in/email`, { email, password }, headers);
    if (response.status !== 503 || attempt === 20) return expectOk(`sign-up ${email}`, response);
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

/** Runs fn over items with at most `limit` in flight. */
export async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}
