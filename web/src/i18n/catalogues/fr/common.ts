import type { Catalogue } from "../en";

export default {
  language: "Langue",
  cancel: "Annuler",
  dismiss: "Fermer",
  unreachable: "Le serveur est injoignable. Vérifiez votre connexion et réessayez.",
  pageTitle: "{title} · Auth Platform",
  errorPage: {
    title: "Une erreur s'est produite",
    unknown: "Une erreur s'est produite et la demande n'a pas pu aboutir.",
    code: "Code d'erreur :",
    back: "Retour à l'application",
  },
  notFound: {
    title: "Page introuvable",
    text: "Il n'y a aucune page à cette adresse.",
  },
  requestFailed: "La requête a échoué ({status}).",
  passwordRules: {
    min: "Au moins {count} caractères",
    max: "Au plus {count} caractères",
  },
  avatar: {
    unreadable: "Ce fichier n'est pas une image que nous pouvons lire. Choisissez une image PNG, JPEG, GIF ou WebP.",
    tooLarge: "L'image dépasse {megabytes} Mo. Choisissez-en une plus petite.",
    notAnImage: "Ce fichier n'est pas une image. Choisissez une image PNG, JPEG, GIF ou WebP.",
    tooComplex: "Cette image n'a pas pu être suffisamment réduite. Essayez une image plus simple.",
  },
} satisfies Catalogue["common"];
