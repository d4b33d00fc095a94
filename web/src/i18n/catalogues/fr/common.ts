import type { Catalogue } from "../en";

export default {
  language: "Langue",
  cancel: "Annuler",
  dismiss: "Fermer",
  unreachable: "Le serveur est injoignable. Vérifiez votre connexion et réessayez.",
} satisfies Catalogue["common"];
