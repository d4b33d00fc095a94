/**
 * The check every message catalogue passes against its English source (the web app's and the mails'): the
 * same keys, no empty message, and per message the same {placeholders}, so no translation drops a value
 * or names one the code never fills.
 */

type Tree = { readonly [key: string]: string | Tree };

const placeholders = (message: string) => [...new Set(message.match(/\{\w+\}/g) ?? [])].sort();

/** Every difference from English, one line each ("errors.INVALID_EMAIL: placeholders {a} instead of {b}"). */
export function catalogueProblems(english: Tree, other: Tree, path = ""): string[] {
  const problems: string[] = [];
  for (const key of new Set([...Object.keys(english), ...Object.keys(other)])) {
    const at = path ? `${path}.${key}` : key;
    const source = english[key];
    const translated = other[key];
    if (source === undefined) problems.push(`${at}: not in English`);
    else if (translated === undefined) problems.push(`${at}: missing`);
    else if (typeof source !== typeof translated) problems.push(`${at}: a ${typeof translated} instead of a ${typeof source}`);
    else if (typeof source === "string" && typeof translated === "string") {
      if (!translated.trim()) problems.push(`${at}: empty`);
      const expected = placeholders(source).join(" ");
      const found = placeholders(translated).join(" ");
      if (expected !== found) problems.push(`${at}: placeholders ${found || "(none)"} instead of ${expected || "(none)"}`);
    } else problems.push(...catalogueProblems(source as Tree, translated as Tree, at));
  }
  return problems;
}
