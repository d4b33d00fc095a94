import type { Catalogue } from "../en";

export default {
  title: "Ohne Passwort anmelden",
  email: "E-Mail-Adresse",
  sendLink: "Anmeldelink per E-Mail senden",
  sendCode: "Code per E-Mail senden",
  sending: "Wird gesendet…",
  linkSent: "Wenn sich {email} hier anmelden kann, ist ein Anmeldelink unterwegs. Er gilt ein einziges Mal und nur für wenige Minuten.",
  codeTitle: "Code eingeben",
  codeIntro: "Wenn {email} ihn nutzen kann, ist ein sechsstelliger Code unterwegs. Er gilt ein einziges Mal und nur für wenige Minuten.",
  noEmail: "Fordern Sie zuerst auf der Anmeldeseite einen Code an.",
  code: "Code",
  signIn: "Anmelden",
  signingIn: "Anmeldung läuft…",
  resend: "Neuen Code senden",
  codeResent: "Ein neuer Code ist unterwegs; der vorige gilt nicht mehr.",
  backToSignIn: "Zurück zur Anmeldung",
  resetByCode: "Stattdessen einen Code per E-Mail senden",
  resetIntro: "Geben Sie die E-Mail-Adresse Ihres Kontos ein, und wir senden Ihnen einen Code, um ein neues Passwort zu wählen.",
} satisfies Catalogue["mailSignIn"];
