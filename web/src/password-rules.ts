/** The platform's password length rules (docs/http-api.md#limits-and-defaults: 8 to 128 characters by default), checked as one types. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export interface Rule {
  label: string;
  met: boolean;
}

export function passwordRules(password: string): Rule[] {
  const length = [...password].length;
  return [
    { label: `At least ${PASSWORD_MIN} characters`, met: length >= PASSWORD_MIN },
    { label: `At most ${PASSWORD_MAX} characters`, met: length <= PASSWORD_MAX },
  ];
}

export const passwordAcceptable = (password: string) => passwordRules(password).every((rule) => rule.met);
