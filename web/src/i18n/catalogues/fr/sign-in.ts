import type { Catalogue } from "../en";

export default {
  title: "Se connecter",
  identifier: "E-mail ou nom d’utilisateur",
  password: "Mot de passe",
  rememberMe: "Rester connecté sur cet appareil",
  submit: "Se connecter",
  submitting: "Connexion…",
  forgotPassword: "Mot de passe oublié ?",
  newHere: "Nouveau ici ?",
  createAccount: "Créer un compte",
  signedOutEverywhere: "Vous avez été déconnecté de tous vos appareils, y compris celui-ci.",
  passwordNeeded: "Saisissez votre mot de passe.",
  passwordHint: "Inutile si votre organisation vous connecte avec son propre compte : laissez-le vide.",
  otherServices: "Se connecter avec un autre service",
  continueWith: "Continuer avec {provider}",
  opening: "Ouverture de {provider}…",
} satisfies Catalogue["signIn"];
