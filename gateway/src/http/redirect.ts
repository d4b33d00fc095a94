/** Redirects to a (checked) callback URL with query parameters added; relative URLs stay relative. */
import type { Response } from "express";

export function withParams(url: string, params: Record<string, string>): string {
  const relative = url.startsWith("/");
  const parsed = new URL(url, "http://relative.invalid");
  for (const [name, value] of Object.entries(params)) parsed.searchParams.set(name, value);
  return relative ? `${parsed.pathname}${parsed.search}${parsed.hash}` : parsed.toString();
}

export function redirectTo(res: Response, url: string, params: Record<string, string> = {}): void {
  res.redirect(302, withParams(url, params));
}
