/** The mail catalogues, one per language the platform speaks (runtime/language.ts); English is the source of keys. */
import type { Language } from "@auth-platform/runtime/language";
import de from "./de.js";
import en, { type MailCatalogue } from "./en.js";
import es from "./es.js";
import fr from "./fr.js";

export type { MailCatalogue };

export const MAIL_CATALOGUES: Readonly<Record<Language, MailCatalogue>> = { en, de, fr, es };

/** A message with its {placeholders} filled in one pass (a value's own braces stay as typed). */
export function fill(message: string, values: Readonly<Record<string, string>>): string {
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole));
}
