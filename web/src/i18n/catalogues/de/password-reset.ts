import type { Catalogue } from "../en";

export default {
  forgotTitle: "Passwort vergessen?",
  forgotIntro: "Geben Sie die E-Mail-Adresse Ihres Kontos ein. Wir senden Ihnen einen Link, mit dem Sie ein neues Passwort wählen.",
  email: "E-Mail-Adresse",
  send: "Link senden",
  sending: "Wird gesendet…",
  sent: "Falls ein Konto diese Adresse verwendet, wurde ein Link zum Zurücksetzen des Passworts an sie gesendet",
  backToSignIn: "Zurück zur Anmeldung",
  resetTitle: "Passwort zurücksetzen",
  noToken:
    "Diese Seite enthält keinen Link zum Zurücksetzen: Nach dem Öffnen wird er aus der Adresse entfernt, daher geht er beim Neuladen verloren. Öffnen Sie den Link aus Ihrer E-Mail erneut oder fordern Sie einen neuen an.",
  askAgain: "Neuen Link anfordern",
  chooseTitle: "Neues Passwort wählen",
  newPassword: "Neues Passwort",
  meetRules: "Wählen Sie ein Passwort, das die Regeln unten erfüllt.",
  save: "Neues Passwort speichern",
  saving: "Wird gespeichert…",
  changedTitle: "Passwort geändert",
  changed: "Ihr Passwort wurde geändert. Sie können sich jetzt damit anmelden.",
  signIn: "Anmelden",
} satisfies Catalogue["passwordReset"];
