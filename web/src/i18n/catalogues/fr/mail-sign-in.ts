import type { Catalogue } from "../en";

export default {
  title: "Se connecter sans mot de passe",
  email: "Adresse e-mail",
  sendLink: "M'envoyer un lien de connexion",
  sendCode: "M'envoyer un code",
  sending: "Envoi…",
  linkSent: "Si {email} peut se connecter ici, un lien de connexion est en route. Il ne sert qu'une fois, et seulement pendant quelques minutes.",
  codeTitle: "Saisissez votre code",
  codeIntro: "Si {email} peut s'en servir, un code à six chiffres est en route. Il ne sert qu'une fois, et seulement pendant quelques minutes.",
  noEmail: "Demandez d'abord un code sur l'écran de connexion.",
  code: "Code",
  signIn: "Se connecter",
  signingIn: "Connexion…",
  resend: "Envoyer un nouveau code",
  codeResent: "Un nouveau code est en route ; le précédent ne fonctionne plus.",
  backToSignIn: "Retour à la connexion",
  resetByCode: "M'envoyer plutôt un code",
  resetIntro: "Saisissez l'adresse e-mail de votre compte et nous vous enverrons un code pour choisir un nouveau mot de passe.",
} satisfies Catalogue["mailSignIn"];
