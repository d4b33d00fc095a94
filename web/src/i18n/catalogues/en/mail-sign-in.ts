/** Sign-in by a mailed link or code, and the password reset by code. */
export default {
  title: "Sign in without a password",
  email: "Email",
  sendLink: "Email me a sign-in link",
  sendCode: "Email me a code",
  sending: "Sending…",
  linkSent: "If {email} can sign in here, a sign-in link is on its way. It works once, for a few minutes.",
  codeTitle: "Enter your code",
  codeIntro: "If {email} can use it, a six-digit code is on its way. It works once, for a few minutes.",
  code: "Code",
  signIn: "Sign in",
  signingIn: "Signing in…",
  resend: "Send a new code",
  codeResent: "A new code is on its way; the previous one no longer works.",
  backToSignIn: "Back to sign-in",
  resetByCode: "Email me a code instead",
  resetIntro: "Enter your account's email address and we will send you a code to choose a new password.",
};
