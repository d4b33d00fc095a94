/** Fixtures of the mail sign-in suites: reading the mailed link and code, and both client generations with the plugins. */
import { createAuthClient as createLegacyClient } from "better-auth/client";
import { emailOTPClient as legacyEmailOtpClient, magicLinkClient as legacyMagicLinkClient } from "better-auth/client/plugins";
import { createAuthClient as createCurrentClient } from "better-auth-1.7/client";
import { emailOTPClient, magicLinkClient } from "better-auth-1.7/client/plugins";
import { browserFetch } from "../../testing/browser.js";
import { linkIn, type TestSmtp } from "../../testing/smtp.js";

/** Both plugins switched on (they are off by default). */
export const MAIL_SIGN_IN_ENV = { IDENTITY_MAGIC_LINK_ENABLED: "true", IDENTITY_EMAIL_OTP_ENABLED: "true" };

/** The newest sign-in link mailed to the address. */
export const magicLinkFor = async (smtp: TestSmtp, email: string) => linkIn(await smtp.waitFor(email, (m) => m.text.includes("/magic-link/verify")), "/magic-link/verify");

/** The newest code mailed to the address whose subject says what it is for. */
export async function codeFor(smtp: TestSmtp, email: string, subject: RegExp, after = 0): Promise<string> {
  const mail = await smtp.waitFor(email, (m) => subject.test(m.subject) && smtp.mails.indexOf(m) >= after);
  return /\b(\d{6})\b/.exec(mail.text)![1]!;
}

export const SIGN_IN_CODE = /sign-in code/;
export const VERIFICATION_CODE = /verification code/;
export const RESET_CODE = /password reset code/;

type CustomFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const currentMailClient = (baseURL: string, customFetchImpl: CustomFetch) =>
  createCurrentClient({ baseURL, plugins: [magicLinkClient(), emailOTPClient()], fetchOptions: { customFetchImpl } });
const legacyMailClient = (baseURL: string, customFetchImpl: CustomFetch) =>
  createLegacyClient({ baseURL, plugins: [legacyMagicLinkClient(), legacyEmailOtpClient()], fetchOptions: { customFetchImpl } });

/** Typed as the current client: the two share every call the suites make but the reset request's path. */
export type MailClient = ReturnType<typeof currentMailClient>;

export interface MailClientGeneration {
  version: string;
  current: boolean;
  make(baseURL: string, customFetchImpl: CustomFetch): MailClient;
  /** forgetPassword.emailOtp (1.1) or emailOtp.requestPasswordReset (current). */
  requestResetCode(client: MailClient, email: string): Promise<{ data: unknown; error: unknown }>;
}

export const MAIL_CLIENT_GENERATIONS: MailClientGeneration[] = [
  {
    version: "1.1.9",
    current: false,
    make: (baseURL, fetch) => legacyMailClient(baseURL, fetch) as unknown as MailClient,
    requestResetCode: (client, email) => (client as unknown as ReturnType<typeof legacyMailClient>).forgetPassword.emailOtp({ email }),
  },
  {
    version: "1.7.25",
    current: true,
    make: currentMailClient,
    requestResetCode: (client, email) => client.emailOtp.requestPasswordReset({ email }),
  },
];

/** A browser tab with a generation's client in it; `open` follows a mailed link (a GET, redirects not followed). */
export function aMailBrowser(origin: string, baseURL: string, generation: MailClientGeneration) {
  const { cookies, exchanges, customFetchImpl } = browserFetch(origin);
  const client = generation.make(baseURL, customFetchImpl);
  const open = async (link: string) => {
    const res = await customFetchImpl(link);
    const text = await res.text();
    const json = (res.headers.get("content-type") ?? "").includes("json");
    return { status: res.status, location: res.headers.get("location"), body: json && text ? JSON.parse(text) : text };
  };
  return { client, cookies, exchanges, open };
}
