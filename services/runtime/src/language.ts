/**
 * The languages the platform speaks (docs/adr/0055-languages-of-the-app-and-the-mails.md): the web app's
 * catalogues and the mails' catalogues are one per language of this list. The gateway picks one from a
 * request's Accept-Language and passes it down with the RPCs that lead to a mail; a service given none, or
 * one it does not speak, writes in English.
 */

export const LANGUAGES = ["en", "de", "fr", "es"] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = "en";

export const isLanguage = (value: unknown): value is Language => typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);

/** A language a caller sent (an RPC field, a stored row), as one we speak: English for none or another. */
export const languageOr = (value: string | null | undefined): Language => (isLanguage(value) ? value : DEFAULT_LANGUAGE);

/** Longer headers are not read past this (a browser sends a few dozen characters). */
const MAX_HEADER_LENGTH = 512;

/**
 * The best language of an Accept-Language header (RFC 9110 12.5.4) among LANGUAGES: the highest q-value
 * wins, the earlier entry on a tie; a region counts as its language (de-AT is de); `*` is English; q=0
 * refuses. English when nothing matches or there is no header.
 */
export function negotiateLanguage(header: string | undefined): Language {
  if (!header) return DEFAULT_LANGUAGE;
  let best: Language = DEFAULT_LANGUAGE;
  let bestQ = 0;
  for (const entry of header.slice(0, MAX_HEADER_LENGTH).split(",")) {
    const [range = "", ...params] = entry.trim().split(";");
    const tag = range.trim().toLowerCase();
    const base = tag === "*" ? DEFAULT_LANGUAGE : tag.split("-")[0];
    if (!isLanguage(base)) continue;
    const q = qualityOf(params);
    if (q > bestQ) {
      best = base;
      bestQ = q;
    }
  }
  return best;
}

/** The q parameter of an entry: 1 when absent, 0 when malformed (so a broken entry never wins). */
function qualityOf(params: string[]): number {
  const q = params.map((param) => param.split("=").map((part) => part.trim().toLowerCase())).find(([name]) => name === "q");
  if (q === undefined) return 1;
  const value = q.length === 2 ? q[1]! : "";
  return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value) ? Number(value) : 0;
}
