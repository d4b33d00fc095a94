// @vitest-environment happy-dom
/** The app's catalogues against English, and what the reader sees of errors in another language. */
import { ERRORS } from "@auth-platform/proto/errors";
import { LANGUAGES as SERVER_LANGUAGES } from "@auth-platform/runtime/language";
import { afterEach, describe, expect, it, vi } from "vitest";
import { catalogueProblems } from "../../../testing/catalogues.js";
import { ApiError, api, errorMessage } from "../api";
import { errorSentence } from "../error-codes";
import de from "./catalogues/de";
import en from "./catalogues/en";
import es from "./catalogues/es";
import fr from "./catalogues/fr";
import { LANGUAGES, switchLanguage } from ".";

afterEach(async () => {
  vi.unstubAllGlobals();
  await switchLanguage("en");
});

describe("catalogues", () => {
  it.each([
    ["en", en],
    ["de", de],
    ["fr", fr],
    ["es", es],
  ])("%s has every message of English, none empty, with the same placeholders", (_language, catalogue) => {
    expect(catalogueProblems(en, catalogue)).toEqual([]);
  });

  it("the English errors are the server catalogue's messages, one per code", () => {
    expect(en.errors).toEqual(Object.fromEntries(Object.entries(ERRORS).map(([code, entry]) => [code, entry.message])));
  });

  it("speaks the languages the server writes mails in", () => {
    expect(Object.keys(LANGUAGES).sort()).toEqual([...SERVER_LANGUAGES].sort());
  });
});

describe("errors in the reader's language", () => {
  const taken = new ApiError(422, "USER_ALREADY_EXISTS", "User already exists");

  it("shows the catalogue's message for the code, and the error keeps its code", async () => {
    await switchLanguage("de");
    expect(errorMessage(taken)).toBe("Es gibt bereits ein Konto mit dieser E-Mail-Adresse.");
    expect(taken.code).toBe("USER_ALREADY_EXISTS");
    await switchLanguage("es");
    expect(errorMessage(new ApiError(429, "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", "Too many requests. Please try again later."))).toBe(
      "Demasiadas solicitudes. Vuelve a intentarlo más tarde.",
    );
  });

  it("in English shows the server's message, a more precise one included; a code no catalogue knows keeps it too", async () => {
    const precise = new ApiError(400, "VALIDATION_ERROR", "Invalid image: expected an https: URL or a data:image URL");
    expect(errorMessage(precise)).toBe(precise.message);
    expect(errorMessage(taken)).toBe("User already exists");
    await switchLanguage("fr");
    expect(errorMessage(precise)).toBe("Les données saisies ne sont pas valides.");
    expect(errorMessage(new ApiError(400, "SOME_NEWER_CODE", "Some newer refusal"))).toBe("Some newer refusal");
    expect(errorMessage(new TypeError("fetch failed"))).toBe("Le serveur est injoignable. Vérifiez votre connexion et réessayez.");
  });

  it("gives each redirect code its sentence, and unknown ones the general sentence", async () => {
    await switchLanguage("de");
    expect(errorSentence("token_expired")).toBe("Dieser Link ist abgelaufen. Fordern Sie einen neuen an und verwenden Sie ihn innerhalb einer Stunde.");
    expect(errorSentence("email_doesn't_match")).toBe("Die E-Mail-Adresse dieses Anbieterkontos stimmt nicht mit der dieses Kontos überein.");
    for (const unknown of ["no_such_code", "__proto__", "constructor", "token_expired.x", ""]) {
      expect(errorSentence(unknown), unknown).toBe("Etwas ist schiefgelaufen; die Anfrage konnte nicht abgeschlossen werden.");
    }
  });
});

describe("the API client", () => {
  it("tells the server the app's language with every call, so the mails it leads to are written in it", async () => {
    const sent: Array<string | null> = [];
    vi.stubGlobal("fetch", async (_url: string, init?: RequestInit) => {
      sent.push(new Headers(init?.headers).get("accept-language"));
      return new Response("null", { status: 200, headers: { "content-type": "application/json" } });
    });
    await api.getSession();
    await switchLanguage("de");
    await api.signUpEmail({ name: "Ada", email: "ada@example.com", password: "password-123", callbackURL: "/account" });
    expect(sent).toEqual(["en", "de"]);
  });

  it("names a rate limit answered without the gateway's body by the catalogue's code, in the reader's language", async () => {
    vi.stubGlobal("fetch", async () => new Response("Too Many Requests", { status: 429 }));
    await switchLanguage("de");
    const refusal = await api.getSession().catch((error: unknown) => error);
    expect(refusal).toMatchObject({ status: 429, code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER" });
    expect(errorMessage(refusal)).toBe("Zu viele Anfragen. Bitte versuchen Sie es später erneut.");
  });
});
