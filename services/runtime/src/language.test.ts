import { describe, expect, it } from "vitest";
import { languageOr, negotiateLanguage } from "./language.js";

describe("negotiateLanguage", () => {
  it.each([
    [undefined, "en"],
    ["", "en"],
    ["de", "de"],
    ["de-DE,de;q=0.9,en;q=0.8", "de"],
    ["fr-CA", "fr"],
    ["ES", "es"],
    ["ja, ko;q=0.9", "en"],
    ["ja, es;q=0.3", "es"],
    ["en;q=0.5, fr;q=0.8", "fr"],
    ["de;q=0.7, fr;q=0.7", "de"],
    ["de;q=0, fr;q=0.1", "fr"],
    ["de;q=0", "en"],
    ["*", "en"],
    ["*;q=0.1, es;q=0.5", "es"],
    ["de;q=abc, fr;q=0.2", "fr"],
    ["de;q=1.5, es", "es"],
    ["de ; q=0.9 , fr ; q = 0.5", "de"],
    [" , ;, de", "de"],
  ])("%j -> %s", (header, language) => {
    expect(negotiateLanguage(header)).toBe(language);
  });

  it("reads no further than the first 512 characters of a long header", () => {
    expect(negotiateLanguage(`${"xx;q=0.1,".repeat(60)}de`)).toBe("en");
  });
});

describe("languageOr", () => {
  it("keeps a language we speak and gives English for anything else", () => {
    expect(languageOr("fr")).toBe("fr");
    expect([languageOr(undefined), languageOr(null), languageOr(""), languageOr("it"), languageOr("DE")]).toEqual(["en", "en", "en", "en", "en"]);
  });
});
