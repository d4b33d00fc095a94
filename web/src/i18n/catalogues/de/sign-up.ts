import type { Catalogue } from "../en";

export default {
  title: "Konto erstellen",
  name: "Name",
  email: "E-Mail-Adresse",
  username: "Benutzername (optional)",
  usernameHint: "Damit können Sie sich statt mit Ihrer E-Mail-Adresse mit einem Benutzernamen anmelden.",
  password: "Passwort",
  ruleMin: "Mindestens {count} Zeichen",
  ruleMax: "Höchstens {count} Zeichen",
  ruleMet: "(erfüllt)",
  ruleUnmet: "(noch nicht erfüllt)",
  enterName: "Geben Sie Ihren Namen ein.",
  meetRules: "Wählen Sie ein Passwort, das die Regeln unten erfüllt.",
  submit: "Konto erstellen",
  submitting: "Ihr Konto wird erstellt…",
  haveAccount: "Sie haben schon ein Konto?",
  signIn: "Anmelden",
  checkEmailTitle: "Prüfen Sie Ihr Postfach",
  checkEmail: "Wir haben einen Link an {email} gesendet. Öffnen Sie ihn, um Ihre Adresse zu bestätigen, und melden Sie sich dann an.",
} satisfies Catalogue["signUp"];
