/**
 * A readable sentence, in the reader's language, for each redirect error code
 * (docs/http-api.md#redirect-error-codes): `/error?error={code}` and the `error` parameter the gateway adds
 * to a callback URL. The sentences are the `redirectErrors` catalogue namespace; unknown codes get a
 * general sentence, and the page always shows the code itself as well.
 */
import { translate, translateIfKnown } from "./i18n";

export function errorSentence(code: string): string {
  return translateIfKnown(`redirectErrors.${code}`) ?? translate("common.errorPage.unknown");
}
