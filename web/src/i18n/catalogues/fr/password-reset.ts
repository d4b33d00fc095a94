import type { Catalogue } from "../en";

export default {
  forgotTitle: "Mot de passe oublié ?",
  forgotIntro: "Saisissez l’adresse e-mail de votre compte : nous vous enverrons un lien pour choisir un nouveau mot de passe.",
  email: "E-mail",
  send: "Envoyer le lien",
  sending: "Envoi…",
  sent: "Si un compte utilise cette adresse, un lien de réinitialisation du mot de passe lui a été envoyé",
  backToSignIn: "Retour à la connexion",
  resetTitle: "Réinitialiser votre mot de passe",
  noToken:
    "Cette page n’a pas de lien de réinitialisation : une fois ouvert, le lien est retiré de l’adresse, et un rechargement le perd. Ouvrez à nouveau le lien de votre e-mail, ou demandez-en un nouveau.",
  askAgain: "Demander un nouveau lien",
  chooseTitle: "Choisir un nouveau mot de passe",
  newPassword: "Nouveau mot de passe",
  meetRules: "Choisissez un mot de passe qui respecte les règles ci-dessous.",
  save: "Enregistrer le mot de passe",
  saving: "Enregistrement…",
  changedTitle: "Mot de passe modifié",
  changed: "Votre mot de passe a été modifié. Vous pouvez maintenant vous connecter avec.",
  signIn: "Se connecter",
} satisfies Catalogue["passwordReset"];
