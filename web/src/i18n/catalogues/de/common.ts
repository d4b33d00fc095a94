import type { Catalogue } from "../en";

export default {
  language: "Sprache",
  cancel: "Abbrechen",
  dismiss: "Schließen",
  unreachable: "Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
  pageTitle: "{title} · Auth Platform",
  errorPage: {
    title: "Etwas ist schiefgelaufen",
    unknown: "Etwas ist schiefgelaufen; die Anfrage konnte nicht abgeschlossen werden.",
    code: "Fehlercode:",
    back: "Zurück zur Anwendung",
  },
  notFound: {
    title: "Seite nicht gefunden",
    text: "Unter dieser Adresse gibt es keine Seite.",
  },
  requestFailed: "Die Anfrage ist fehlgeschlagen ({status}).",
  passwordRules: {
    min: "Mindestens {count} Zeichen",
    max: "Höchstens {count} Zeichen",
  },
  avatar: {
    unreadable: "Diese Datei ist kein Bild, das wir lesen können. Wählen Sie ein PNG-, JPEG-, GIF- oder WebP-Bild.",
    tooLarge: "Das Bild ist größer als {megabytes} MB. Wählen Sie ein kleineres.",
    notAnImage: "Diese Datei ist kein Bild. Wählen Sie ein PNG-, JPEG-, GIF- oder WebP-Bild.",
    tooComplex: "Dieses Bild ließ sich nicht klein genug machen. Versuchen Sie es mit einem einfacheren Bild.",
  },
} satisfies Catalogue["common"];
