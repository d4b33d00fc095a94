/** The sign-in screen (and the social sign-in buttons on it). */
export default {
  title: "Sign in",
  identifier: "Email or username",
  password: "Password",
  rememberMe: "Remember me on this device",
  submit: "Sign in",
  submitting: "Signing in…",
  forgotPassword: "Forgot your password?",
  newHere: "New here?",
  createAccount: "Create an account",
  signedOutEverywhere: "You have been signed out on every device, this one included.",
  passwordNeeded: "Enter your password.",
  passwordHint: "Not needed when your organization signs you in with its own account: leave it empty.",
  otherServices: "Sign in with another service",
  continueWith: "Continue with {provider}",
  opening: "Opening {provider}…",
};
