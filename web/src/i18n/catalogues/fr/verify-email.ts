import type { Catalogue } from "../en";

export default {
  title: "Vérification de l’e-mail",
  verifying: "Vérification de votre adresse e-mail…",
  loading: "Chargement…",
  notYet: "Votre adresse e-mail n’est pas encore vérifiée. Ouvrez le lien que nous vous avons envoyé.",
  verified: "Votre adresse e-mail est vérifiée.",
  checkNewTitle: "Consultez votre nouvelle adresse",
  checkNew: "Le changement est approuvé : votre compte utilise désormais {email}. Nous y avons envoyé un lien : ouvrez-le pour vérifier votre nouvelle adresse.",
  changedTitle: "Adresse e-mail modifiée",
  changed: "Votre adresse e-mail est modifiée et vérifiée.",
  toAccount: "Aller à votre compte",
  signIn: "Se connecter",
} satisfies Catalogue["verifyEmail"];
