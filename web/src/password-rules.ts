/** The platform's password length rules (docs/http-api.md#limits-and-defaults: 8 to 128 characters by default), checked as one types. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export interface Rule {
  /** Which rule: the screens word it in the reader's language. */
  id: "min" | "max";
  /** Its number of characters. */
  limit: number;
  met: boolean;
}

export function passwordRules(password: string): Rule[] {
  const length = [...password].length;
  return [
    { id: "min", limit: PASSWORD_MIN, met: length >= PASSWORD_MIN },
    { id: "max", limit: PASSWORD_MAX, met: length <= PASSWORD_MAX },
  ];
}

export const passwordAcceptable = (password: string) => passwordRules(password).every((rule) => rule.met);
