import type { Catalogue } from "../en";

export default {
  language: "Sprache",
  cancel: "Abbrechen",
  dismiss: "Schließen",
  unreachable: "Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
  tooManyRequestsWait: "Zu viele Versuche. Warten Sie {wait} und versuchen Sie es dann erneut.",
  tryAgainIn: "Erneut in {seconds} s",
  suspended: "Ihr Konto ist gesperrt.",
  suspendedUntil: "Ihr Konto ist bis zum {date} gesperrt.",
} satisfies Catalogue["common"];
