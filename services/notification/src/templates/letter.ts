/**
 * The shared shape of every mail: a template module describes a letter (subject, heading, paragraphs, an
 * optional action link and code) in the words of the mail's language (catalogues/); compose() turns it into
 * the plain-text and HTML bodies. Every variable is HTML-escaped here, in one place, so a template cannot forget to.
 */
import type { Language } from "@auth-platform/runtime/language";
import { fill, type MailCatalogue } from "./catalogues/index.js";

export type TemplateName = Exclude<keyof MailCatalogue, "letter">;

/** What every mail may use besides its variables: the product's name, where its footer points, its language (default English). */
export interface MailContext {
  appName: string;
  footerUrl?: string;
  language?: Language;
}

/** What a template writes its letter with: the product's name and the catalogue of the mail's language. */
export interface LetterContext {
  appName: string;
  text: MailCatalogue;
}

/** Template variables as the caller sends them (snake_case keys: url, name, email, new_email, …). */
export type Variables = Readonly<Record<string, string | undefined>>;

export interface Letter {
  subject: string;
  heading: string;
  /** Paragraphs before the action, plain text. */
  intro: string[];
  action?: { label: string; url: string };
  /** A one-time code shown prominently. */
  code?: string;
  /** Paragraphs after the action, plain text. */
  outro: string[];
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  /** The action links of the message (for the development mailbox). */
  links: string[];
}

export interface MailTemplate {
  name: TemplateName;
  /** Variables the template cannot do without. */
  required: readonly string[];
  letter(vars: Variables, context: LetterContext): Letter;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The longest name a mail shows of what someone else typed (an organization's, an inviter's), in characters. */
export const MAX_SHOWN_NAME = 60;

/** Invisible and direction-changing characters: they can hide or reorder what a name shows. */
const INVISIBLE = /[\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;
/** A URL's scheme and its slashes ("https://", "ftp://"): dropped, so no link starts in a name. */
const SCHEME = /\b[a-z][a-z0-9+.-]*:\/\/+/giu;
/** A dot, or one of the full-width and ideographic dots that IDNA reads as one. */
const DOT = "[.\\u3002\\uff0e\\uff61]";
/** A host-looking run ("evil.example", "www.evil.example", "evil。example"): its dots are broken as "[.]". */
const HOST = new RegExp(`[\\p{L}\\p{N}-]+(?:${DOT}[\\p{L}\\p{N}-]+)*${DOT}\\p{L}[\\p{L}\\p{N}-]+`, "gu");
/** An IPv4 address, which mail clients link as readily as a host name. */
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g;

/**
 * A name someone other than the recipient chose, made fit for a subject or a sentence: no control or
 * invisible characters, no URL a mail client would turn into a link (no scheme, host dots broken as "[.]"),
 * spaces collapsed, and at most MAX_SHOWN_NAME characters (longer ones cut, with an ellipsis).
 */
export function shownName(value: string): string {
  const plain = value
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is this pattern's purpose.
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .replace(INVISIBLE, "")
    .replace(SCHEME, "")
    .replace(HOST, (host) => host.replace(new RegExp(DOT, "g"), "[.]"))
    .replace(IPV4, (address) => address.replace(/\./g, "[.]"))
    .replace(/\s+/g, " ")
    .trim();
  const characters = Array.from(plain);
  return characters.length > MAX_SHOWN_NAME ? `${characters.slice(0, MAX_SHOWN_NAME).join("").trimEnd()}…` : plain;
}

/** "Hi Ada," or "Hi," when the name is unknown (in the mail's language). */
export function greeting(vars: Variables, text: MailCatalogue): string {
  return vars.name ? fill(text.letter.greeting, { name: vars.name }) : text.letter.greetingWithoutName;
}

function composeText(letter: Letter, context: MailContext): string {
  const blocks = [letter.heading, ...letter.intro];
  if (letter.code) blocks.push(`    ${letter.code}`);
  if (letter.action) blocks.push(`${letter.action.label}: ${letter.action.url}`);
  blocks.push(...letter.outro);
  // "-- " is the conventional signature separator mail clients recognise.
  blocks.push(["-- ", context.appName, ...(context.footerUrl ? [context.footerUrl] : [])].join("\n"));
  return `${blocks.join("\n\n")}\n`;
}

const paragraph = (text: string) => `<p style="margin:0 0 16px;line-height:1.5">${escapeHtml(text)}</p>`;

function composeHtml(letter: Letter, context: MailContext, text: MailCatalogue): string {
  const action = letter.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(letter.action.url)}" style="display:inline-block;background:#111827;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${escapeHtml(letter.action.label)}</a></p>
<p style="margin:0 0 16px;line-height:1.5;font-size:13px;color:#6b7280">${escapeHtml(text.letter.pasteLink)}<br><a href="${escapeHtml(letter.action.url)}" style="color:#2563eb;word-break:break-all">${escapeHtml(letter.action.url)}</a></p>`
    : "";
  const code = letter.code
    ? `<p style="margin:24px 0;font-size:28px;font-weight:700;letter-spacing:6px;font-family:ui-monospace,Menlo,Consolas,monospace">${escapeHtml(letter.code)}</p>`
    : "";
  const footerLink = context.footerUrl ? `<br><a href="${escapeHtml(context.footerUrl)}" style="color:#6b7280">${escapeHtml(context.footerUrl)}</a>` : "";
  return `<!doctype html>
<html lang="${context.language ?? "en"}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(letter.subject)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111827">
<div style="max-width:560px;margin:0 auto;padding:32px 16px">
<div style="background:#ffffff;border-radius:8px;padding:32px">
<h1 style="margin:0 0 24px;font-size:20px">${escapeHtml(letter.heading)}</h1>
${letter.intro.map(paragraph).join("\n")}
${code}${action}
${letter.outro.map(paragraph).join("\n")}
</div>
<p style="margin:16px 0 0;text-align:center;font-size:12px;color:#6b7280">${escapeHtml(context.appName)}${footerLink}</p>
</div>
</body>
</html>
`;
}

/** The letter as a finished message: subject, both bodies, and its links. */
export function compose(letter: Letter, context: MailContext, text: MailCatalogue): RenderedMail {
  return {
    // Why: a variable with a line break must never start a new header line.
    subject: letter.subject.replace(/[\r\n\t]+/g, " ").trim(),
    text: composeText(letter, context),
    html: composeHtml(letter, context, text),
    links: letter.action ? [letter.action.url] : [],
  };
}
