/**
 * The app's languages. One catalogue per language (catalogues/<language>/), split by screen; English is the
 * source every other catalogue must match key for key (the compiler checks). English ships in the bundle,
 * the others load when chosen. The language is the one picked in the account page (kept in this browser),
 * else the browser's first supported language, else English.
 */
import { useSyncExternalStore } from "react";
import en, { type Catalogue } from "./catalogues/en";

export const LANGUAGES = { en: "English", de: "Deutsch", fr: "Français", es: "Español" } as const;
export type Language = keyof typeof LANGUAGES;
export type { Catalogue };

const LOADERS: Record<Exclude<Language, "en">, () => Promise<{ default: Catalogue }>> = {
  de: () => import("./catalogues/de"),
  fr: () => import("./catalogues/fr"),
  es: () => import("./catalogues/es"),
};

const STORAGE_KEY = "language";

/** Every key of the catalogue, as a dotted path ("account.title"). */
type Paths<T> = { [K in keyof T & string]: T[K] extends string ? K : `${K}.${Paths<T[K]>}` }[keyof T & string];
export type MessageKey = Paths<Catalogue>;
export type MessageParams = Record<string, string | number>;

let language: Language = "en";
let catalogue: Catalogue = en;
const listeners = new Set<() => void>();

const isLanguage = (value: unknown): value is Language => typeof value === "string" && Object.hasOwn(LANGUAGES, value);

/** The picked language, else the first of the browser's languages the app speaks (de-AT speaks de). */
export function preferredLanguage(): Language {
  const picked = safeStorage()?.getItem(STORAGE_KEY);
  if (isLanguage(picked)) return picked;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split("-")[0];
    if (isLanguage(base)) return base;
  }
  return "en";
}

function safeStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined; // storage disabled: the browser's language still applies
  }
}

/** Loads a language's catalogue and makes it current; the page's lang attribute follows. */
export async function switchLanguage(next: Language): Promise<void> {
  const loaded = next === "en" ? en : (await LOADERS[next]()).default;
  language = next;
  catalogue = loaded;
  document.documentElement.lang = next;
  for (const listener of listeners) listener();
}

/** The picker's choice: remembered in this browser, then loaded. */
export async function pickLanguage(next: Language): Promise<void> {
  safeStorage()?.setItem(STORAGE_KEY, next);
  await switchLanguage(next);
}

export const currentLanguage = (): Language => language;

function lookup(source: Catalogue, key: string): string | undefined {
  let node: unknown = source;
  for (const part of key.split(".")) node = (node as Record<string, unknown> | undefined)?.[part];
  return typeof node === "string" ? node : undefined;
}

/** The message in the current language, its {placeholders} filled. Outside React (error messages) too. */
export function translate(key: MessageKey, params?: MessageParams): string {
  const text = lookup(catalogue, key) ?? lookup(en, key) ?? key;
  return params ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole)) : text;
}

/** A message by an open-ended key (an error code), or undefined when the catalogue has none. */
export function translateIfKnown(key: string, params?: MessageParams): string | undefined {
  return lookup(catalogue, key) === undefined ? undefined : translate(key as MessageKey, params);
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** For components: `const t = useT();` re-renders the component when the language changes. */
export function useT(): typeof translate {
  useSyncExternalStore(subscribe, () => catalogue);
  return translate;
}

/** The current language, re-rendering on change (the picker, dates formatted for the reader). */
export function useLanguage(): Language {
  return useSyncExternalStore(subscribe, () => language);
}
