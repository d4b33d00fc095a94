/** The platform's password length rules (docs/http-api.md#limits-and-defaults: 8 to 128 characters by default), checked as one types. */
import { translate } from "./i18n";

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export interface Rule {
  /** In the reader's language. */
  label: string;
  met: boolean;
}

export function passwordRules(password: string): Rule[] {
  const length = [...password].length;
  return [
    { label: translate("common.passwordRules.min", { count: PASSWORD_MIN }), met: length >= PASSWORD_MIN },
    { label: translate("common.passwordRules.max", { count: PASSWORD_MAX }), met: length <= PASSWORD_MAX },
  ];
}

export const passwordAcceptable = (password: string) => passwordRules(password).every((rule) => rule.met);
