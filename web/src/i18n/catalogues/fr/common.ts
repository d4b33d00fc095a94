import type { Catalogue } from "../en";

export default {
  language: "Langue",
  cancel: "Annuler",
  dismiss: "Fermer",
  unreachable: "Le serveur est injoignable. Vérifiez votre connexion et réessayez.",
  tooManyRequestsWait: "Trop de tentatives. Attendez {wait}, puis réessayez.",
  tryAgainIn: "Réessayer dans {seconds} s",
  suspended: "Votre compte est suspendu.",
  suspendedUntil: "Votre compte est suspendu jusqu’au {date}.",
} satisfies Catalogue["common"];
