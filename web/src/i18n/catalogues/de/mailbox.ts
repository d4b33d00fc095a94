import type { Catalogue } from "../en";

export default {
  title: "Entwicklungs-Postfach",
  intro: "E-Mails, die die Plattform gesendet hat, während sie mit dem Entwicklungs-Postausgang läuft (ohne Mailserver). Die neuesten zuerst; alle paar Sekunden aktualisiert.",
  unavailable: "Das Entwicklungs-Postfach ist nicht verfügbar: Die Plattform versendet ihre E-Mails über einen Mailserver.",
  recipient: "Empfänger",
  filter: "Filtern",
  empty: "Noch keine E-Mails.",
  emptyTo: "Noch keine E-Mails an {to}.",
  to: "An {to}",
  links: "Links in „{subject}“",
} satisfies Catalogue["mailbox"];
