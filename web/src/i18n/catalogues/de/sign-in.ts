import type { Catalogue } from "../en";

export default {
  title: "Anmelden",
  identifier: "E-Mail-Adresse oder Benutzername",
  password: "Passwort",
  rememberMe: "Auf diesem Gerät angemeldet bleiben",
  submit: "Anmelden",
  submitting: "Anmeldung läuft…",
  forgotPassword: "Passwort vergessen?",
  newHere: "Neu hier?",
  createAccount: "Konto erstellen",
  signedOutEverywhere: "Sie wurden auf allen Geräten abgemeldet, auch auf diesem.",
  passwordNeeded: "Geben Sie Ihr Passwort ein.",
  passwordHint: "Nicht nötig, wenn Ihre Organisation Sie mit ihrem eigenen Konto anmeldet: lassen Sie es leer.",
  otherServices: "Mit einem anderen Dienst anmelden",
  continueWith: "Weiter mit {provider}",
  opening: "{provider} wird geöffnet…",
} satisfies Catalogue["signIn"];
