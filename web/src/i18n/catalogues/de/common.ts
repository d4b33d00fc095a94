import type { Catalogue } from "../en";

export default {
  language: "Sprache",
  cancel: "Abbrechen",
  dismiss: "Schließen",
  unreachable: "Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
} satisfies Catalogue["common"];
