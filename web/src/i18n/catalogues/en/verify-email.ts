/** Where a verification link lands, and both steps of an email change. */
export default {
  title: "Email verification",
  verifying: "Verifying your email address…",
  loading: "Loading…",
  notYet: "Your email address is not verified yet. Open the link we mailed you.",
  verified: "Your email address is verified.",
  checkNewTitle: "Check your new address",
  checkNew: "The change is approved: your account now uses {email}. We sent a link there: open it to verify your new address.",
  changedTitle: "Email address changed",
  changed: "Your email address is changed and verified.",
  toAccount: "Go to your account",
  signIn: "Sign in",
};
