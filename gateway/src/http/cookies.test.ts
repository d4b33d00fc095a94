import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import { clearSessionCookies, cookieJar, hasDontRemember, parseCookies, setSessionCookie, sign, unsign, unsignImported } from "./cookies.js";

const SECRET = "unit-test-secret-0123456789-0123456789";
const TOKEN = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";

/** The part of an express Response the cookie helpers use, recording each Set-Cookie line. */
function fakeResponse() {
  const setCookies: string[] = [];
  const headers = new Map<string, unknown>();
  const res = {
    append(name: string, value: string | string[]) {
      if (name.toLowerCase() === "set-cookie") setCookies.push(...(Array.isArray(value) ? value : [value]));
      else headers.set(name.toLowerCase(), value);
      return res;
    },
    setHeader(name: string, value: unknown) {
      if (name.toLowerCase() === "set-cookie") setCookies.push(...(Array.isArray(value) ? value : [String(value)]));
      else headers.set(name.toLowerCase(), value);
      return res;
    },
  };
  return { res: res as unknown as Response, setCookies, headers };
}

function attributesOf(line: string): { name: string; value: string; attributes: string[] } {
  const [pair, ...attributes] = line.split(";").map((part) => part.trim());
  const eq = pair!.indexOf("=");
  return { name: pair!.slice(0, eq), value: decodeURIComponent(pair!.slice(eq + 1)), attributes };
}

/** A seven-day session issued 1.5 s ago (the time a sign-in's calls took before the cookie is written). */
const inSevenDays = () => {
  const updatedAt = new Date(Date.now() - 1_500);
  return { updatedAt, expiresAt: new Date(updatedAt.getTime() + 604_800_000) };
};

describe("sign and unsign", () => {
  it("round-trips a value as value.signature", () => {
    const signed = sign(TOKEN, SECRET);
    expect(signed.startsWith(`${TOKEN}.`)).toBe(true);
    expect(signed.slice(TOKEN.length + 1)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(unsign(signed, SECRET)).toBe(TOKEN);
  });

  it("round-trips a value that itself contains dots", () => {
    expect(unsign(sign("a.b.c", SECRET), SECRET)).toBe("a.b.c");
  });

  it("refuses a tampered value", () => {
    const signed = sign(TOKEN, SECRET);
    const tampered = `B${signed.slice(1)}`;
    expect(unsign(tampered, SECRET)).toBeNull();
  });

  it("refuses a tampered signature, and a truncated or extended one", () => {
    const signed = sign(TOKEN, SECRET);
    const last = signed.at(-1) === "A" ? "B" : "A";
    expect(unsign(signed.slice(0, -1) + last, SECRET)).toBeNull();
    expect(unsign(signed.slice(0, -1), SECRET)).toBeNull();
    expect(unsign(`${signed}A`, SECRET)).toBeNull();
    expect(unsign(`${TOKEN}.`, SECRET)).toBeNull();
  });

  it("refuses a value signed under another secret", () => {
    expect(unsign(sign(TOKEN, "another-secret-0123456789-0123456789"), SECRET)).toBeNull();
  });

  it("refuses a value without a dot, or with nothing before it", () => {
    expect(unsign(TOKEN, SECRET)).toBeNull();
    expect(unsign("", SECRET)).toBeNull();
    const signature = sign(TOKEN, SECRET).slice(TOKEN.length);
    expect(unsign(signature, SECRET)).toBeNull();
  });
});

describe("parseCookies", () => {
  it("reads name=value pairs, trimmed and URI-decoded", () => {
    const cookies = parseCookies(" a=1 ;b = two%20words;c=x%2Ey%3Dz");
    expect(Object.fromEntries(cookies)).toEqual({ a: "1", b: "two words", c: "x.y=z" });
  });

  it("keeps the first of duplicate names (the browser sends the most specific first)", () => {
    expect(parseCookies("s=first; s=second; t=1").get("s")).toBe("first");
  });

  it("skips a cookie with a malformed escape and keeps the others", () => {
    const cookies = parseCookies("bad=%E0%A4%A; good=yes; worse=%; last=ok");
    expect(cookies.has("bad")).toBe(false);
    expect(cookies.has("worse")).toBe(false);
    expect(cookies.get("good")).toBe("yes");
    expect(cookies.get("last")).toBe("ok");
  });

  it("skips parts without a name or without an equals sign, and reads an empty header as no cookies", () => {
    expect(Object.fromEntries(parseCookies("novalue; =orphan; ;; k=v"))).toEqual({ k: "v" });
    expect(parseCookies(undefined).size).toBe(0);
    expect(parseCookies("").size).toBe(0);
  });
});

describe("cookieJar", () => {
  it("uses the plain prefix over http and the __Secure- prefix over https", () => {
    expect(cookieJar("better-auth", false)).toEqual({
      sessionName: "better-auth.session_token",
      dontRememberName: "better-auth.dont_remember",
      twoFactorName: "better-auth.two_factor",
      trustDeviceName: "better-auth.trust_device",
      passkeyName: "better-auth.passkey",
      secure: false,
    });
    expect(cookieJar("better-auth", true)).toEqual({
      sessionName: "__Secure-better-auth.session_token",
      dontRememberName: "__Secure-better-auth.dont_remember",
      twoFactorName: "__Secure-better-auth.two_factor",
      trustDeviceName: "__Secure-better-auth.trust_device",
      passkeyName: "__Secure-better-auth.passkey",
      secure: true,
    });
  });
});

describe("setSessionCookie", () => {
  it("sets one signed, HttpOnly, SameSite=Lax, Path=/ cookie living until the session expires", () => {
    const { res, setCookies } = fakeResponse();
    setSessionCookie(res, cookieJar("better-auth", false), SECRET, TOKEN, inSevenDays(), false);
    expect(setCookies).toHaveLength(1);
    const cookie = attributesOf(setCookies[0]!);
    expect(cookie.name).toBe("better-auth.session_token");
    expect(unsign(cookie.value, SECRET)).toBe(TOKEN);
    expect(cookie.attributes).toEqual(expect.arrayContaining(["Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=604800"]));
    expect(cookie.attributes).not.toContain("Secure");
  });

  it("marks the cookie Secure and names it __Secure- when the jar is secure", () => {
    const { res, setCookies } = fakeResponse();
    setSessionCookie(res, cookieJar("better-auth", true), SECRET, TOKEN, inSevenDays(), false);
    const cookie = attributesOf(setCookies[0]!);
    expect(cookie.name).toBe("__Secure-better-auth.session_token");
    expect(cookie.attributes).toEqual(expect.arrayContaining(["Secure", "HttpOnly", "SameSite=Lax", "Path=/"]));
  });

  it("Max-Age is the session's own lifetime, to the second, however long ago it was issued (one day: 86400)", () => {
    const { res, setCookies } = fakeResponse();
    const updatedAt = new Date(Date.now() - 2_700);
    setSessionCookie(res, cookieJar("better-auth", false), SECRET, TOKEN, { updatedAt, expiresAt: new Date(updatedAt.getTime() + 86_400_000) }, false);
    expect(attributesOf(setCookies[0]!).attributes).toContain("Max-Age=86400");
  });

  it("never writes a negative Max-Age for a malformed lifetime", () => {
    const { res, setCookies } = fakeResponse();
    setSessionCookie(res, cookieJar("better-auth", false), SECRET, TOKEN, { updatedAt: new Date(), expiresAt: new Date(Date.now() - 60_000) }, false);
    expect(attributesOf(setCookies[0]!).attributes).toContain("Max-Age=0");
  });

  it("for a dont-remember session: a browser-session cookie (no Max-Age) plus the signed dont_remember cookie", () => {
    const { res, setCookies } = fakeResponse();
    const jar = cookieJar("better-auth", true);
    setSessionCookie(res, jar, SECRET, TOKEN, inSevenDays(), true);
    expect(setCookies).toHaveLength(2);
    const [session, marker] = setCookies.map(attributesOf) as [ReturnType<typeof attributesOf>, ReturnType<typeof attributesOf>];
    expect(session.name).toBe(jar.sessionName);
    expect(session.attributes.some((a) => a.startsWith("Max-Age"))).toBe(false);
    expect(marker.name).toBe("__Secure-better-auth.dont_remember");
    expect(unsign(marker.value, SECRET)).toBe("true");
    expect(marker.attributes.some((a) => a.startsWith("Max-Age"))).toBe(false);
    expect(marker.attributes).toEqual(expect.arrayContaining(["Path=/", "HttpOnly", "SameSite=Lax", "Secure"]));
  });

  it("the dont_remember cookie it sets is recognised by hasDontRemember, a forged one is not", () => {
    const jar = cookieJar("better-auth", false);
    const { res, setCookies } = fakeResponse();
    setSessionCookie(res, jar, SECRET, TOKEN, inSevenDays(), true);
    const header = setCookies.map((line) => line.split(";")[0]).join("; ");
    expect(hasDontRemember({ headers: { cookie: header } } as Request, jar, SECRET)).toBe(true);
    expect(hasDontRemember({ headers: { cookie: `${jar.dontRememberName}=true.forged` } } as Request, jar, SECRET)).toBe(false);
    expect(hasDontRemember({ headers: {} } as Request, jar, SECRET)).toBe(false);
  });
});

describe("clearSessionCookies", () => {
  it("expires both cookies with Max-Age=0 and the same attributes", () => {
    const { res, setCookies } = fakeResponse();
    clearSessionCookies(res, cookieJar("better-auth", true));
    expect(setCookies.map(attributesOf)).toEqual([
      { name: "__Secure-better-auth.session_token", value: "", attributes: ["Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0", "Secure"] },
      { name: "__Secure-better-auth.dont_remember", value: "", attributes: ["Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0", "Secure"] },
    ]);
  });
});

describe("unsignImported", () => {
  // A better-auth server's signed cookie value: the HMAC-SHA256 in standard base64 (gateway/test/import-better-auth.int.test.ts uses real ones).
  const theirs = (value: string, secret: string) => `${value}.${createHmac("sha256", secret).update(value).digest("base64")}`;

  it("accepts the other encoding under the imported secret only", () => {
    expect(unsignImported(theirs(TOKEN, "old-secret"), "old-secret")).toBe(TOKEN);
    expect(unsignImported(theirs(TOKEN, "old-secret"), SECRET)).toBeNull();
    expect(unsignImported(theirs(TOKEN, "old-secret").slice(0, -2), "old-secret")).toBeNull();
  });

  it("is not fooled by our own encoding, nor ours by theirs", () => {
    expect(unsignImported(sign(TOKEN, SECRET), SECRET)).toBeNull();
    expect(unsign(theirs(TOKEN, SECRET), SECRET)).toBeNull();
  });
});
