/** The mails in German (formal: "Sie"). */
import type { MailCatalogue } from "./en.js";

export default {
  letter: {
    greeting: "Hallo {name},",
    greetingWithoutName: "Hallo,",
    pasteLink: "Oder kopieren Sie diesen Link in Ihren Browser:",
  },
  "email-verification": {
    subject: "Bestätigen Sie Ihre E-Mail-Adresse für {appName}",
    heading: "Bestätigen Sie Ihre E-Mail-Adresse",
    intro: "Bitte bestätigen Sie über den folgenden Link, dass {email} Ihre E-Mail-Adresse für {appName} ist.",
    introWithoutEmail: "Bitte bestätigen Sie über den folgenden Link, dass dies Ihre E-Mail-Adresse für {appName} ist.",
    action: "E-Mail-Adresse bestätigen",
    outro: "Wenn Sie kein Konto bei {appName} angelegt haben, können Sie diese E-Mail ignorieren.",
  },
  "password-reset": {
    subject: "Setzen Sie Ihr Passwort für {appName} zurück",
    heading: "Setzen Sie Ihr Passwort zurück",
    intro: "Jemand möchte das Passwort Ihres Kontos bei {appName} zurücksetzen. Über den folgenden Link wählen Sie ein neues.",
    action: "Passwort zurücksetzen",
    outro: "Wenn Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren: Ihr Passwort bleibt unverändert.",
  },
  "change-email": {
    subject: "Genehmigen Sie die Änderung Ihrer E-Mail-Adresse bei {appName} (Schritt 1 von 2)",
    heading: "Schritt 1 von 2: Genehmigen Sie die Änderung Ihrer E-Mail-Adresse",
    intro:
      "Sie möchten die E-Mail-Adresse Ihres Kontos bei {appName} von dieser Adresse auf {newEmail} ändern. Öffnen Sie den folgenden Link in einem Browser, in dem Sie angemeldet sind, um die Änderung zu genehmigen. Danach senden wir einen Link an {newEmail}, mit dem Sie die neue Adresse bestätigen (Schritt 2 von 2).",
    introWithoutNewEmail:
      "Sie möchten die E-Mail-Adresse Ihres Kontos bei {appName} ändern. Öffnen Sie den folgenden Link in einem Browser, in dem Sie angemeldet sind, um die Änderung zu genehmigen. Danach senden wir einen Link an die neue Adresse, mit dem Sie sie bestätigen (Schritt 2 von 2).",
    action: "Änderung genehmigen",
    outro: "Wenn Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren: Ihre Adresse bleibt unverändert.",
  },
  "change-email-new-address": {
    subject: "Bestätigen Sie Ihre neue E-Mail-Adresse für {appName} (Schritt 2 von 2)",
    heading: "Schritt 2 von 2: Bestätigen Sie Ihre neue E-Mail-Adresse",
    intro:
      "Die E-Mail-Adresse Ihres Kontos bei {appName} lautet jetzt {email}. Bestätigen Sie über den folgenden Link, dass diese Adresse Ihnen gehört; bis dahin gilt sie als nicht bestätigt.",
    action: "Neue Adresse bestätigen",
    outro: "Wenn Sie das nicht angefordert haben, hat vielleicht jemand Ihre Adresse versehentlich eingegeben; Sie können diese E-Mail ignorieren.",
  },
  "delete-account": {
    subject: "Bestätigen Sie das Löschen Ihres Kontos bei {appName}",
    heading: "Bestätigen Sie das Löschen Ihres Kontos",
    intro: "Sie möchten Ihr Konto bei {appName} löschen. Dabei werden das Konto und seine Daten entfernt; das lässt sich nicht rückgängig machen.",
    action: "Mein Konto löschen",
    outro: "Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail; Ihr Konto bleibt dann unverändert. Ändern Sie am besten Ihr Passwort.",
  },
  "organization-invitation": {
    subjectByInviter: "{inviter} hat Sie eingeladen, {organization} bei {appName} beizutreten",
    subject: "Sie sind eingeladen, {organization} bei {appName} beizutreten",
    heading: "Treten Sie {organization} bei",
    introByInviter: "{inviter} hat Sie eingeladen, der Organisation {organization} bei {appName} beizutreten.",
    introByInviterWithRole: "{inviter} hat Sie eingeladen, der Organisation {organization} bei {appName} als {role} beizutreten.",
    intro: "Sie wurden eingeladen, der Organisation {organization} bei {appName} beizutreten.",
    introWithRole: "Sie wurden eingeladen, der Organisation {organization} bei {appName} als {role} beizutreten.",
    unnamed: "(ohne Namen)",
    action: "Einladung annehmen",
    sentBy:
      "Diese E-Mail hat {appName} gesendet, der Anmeldedienst dieser Organisation. Die Namen der Organisation und der einladenden Person haben ihre Mitglieder eingegeben; {appName} hat sie nicht geprüft.",
    notExpected: "Wenn Sie diese Einladung nicht erwartet haben, können Sie diese E-Mail ignorieren.",
  },
  "sign-in-code": {
    subject: "Ihr Anmeldecode für {appName}",
    heading: "Ihr Anmeldecode",
    intro: "Geben Sie diesen Code ein, um sich bei {appName} anzumelden. Er gilt für eine einzige Anmeldung.",
    action: "Anmelden",
    outro: "Wenn Sie sich nicht anmelden wollten, können Sie diese E-Mail ignorieren. Vielleicht hat jemand Ihre Adresse versehentlich eingegeben.",
  },
  "magic-link": {
    subject: "Ihr Anmeldelink für {appName}",
    heading: "Bei {appName} anmelden",
    intro: "Folgen Sie diesem Link, um sich bei {appName} anzumelden. Er gilt ein einziges Mal und nur für wenige Minuten.",
    action: "Anmelden",
    outro: "Wenn Sie sich nicht anmelden wollten, können Sie diese E-Mail ignorieren. Vielleicht hat jemand Ihre Adresse versehentlich eingegeben.",
  },
  "email-otp": {
    "sign-in": {
      subject: "Ihr Anmeldecode für {appName}",
      heading: "Ihr Anmeldecode",
      intro: "Geben Sie diesen Code ein, um sich bei {appName} anzumelden. Er gilt ein einziges Mal und nur für wenige Minuten.",
      action: "Anmelden",
      outro: "Wenn Sie sich nicht anmelden wollten, können Sie diese E-Mail ignorieren. Vielleicht hat jemand Ihre Adresse versehentlich eingegeben.",
    },
    "email-verification": {
      subject: "Ihr Bestätigungscode für {appName}",
      heading: "Bestätigen Sie Ihre E-Mail-Adresse",
      intro: "Geben Sie diesen Code in {appName} ein, um zu bestätigen, dass diese Adresse Ihnen gehört. Er gilt ein einziges Mal und nur für wenige Minuten.",
      action: "Bestätigen",
      outro: "Wenn Sie dies nicht angefordert haben, können Sie diese E-Mail ignorieren.",
    },
    "forget-password": {
      subject: "Ihr Code zum Zurücksetzen des Passworts für {appName}",
      heading: "Passwort zurücksetzen",
      intro: "Geben Sie diesen Code in {appName} ein, um ein neues Passwort zu wählen. Er gilt ein einziges Mal und nur für wenige Minuten.",
      action: "Passwort zurücksetzen",
      outro: "Wenn Sie Ihr Passwort nicht zurücksetzen wollten, können Sie diese E-Mail ignorieren: Ihr Passwort bleibt unverändert.",
    },
  },
} satisfies MailCatalogue;
