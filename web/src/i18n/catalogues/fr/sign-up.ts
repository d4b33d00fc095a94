import type { Catalogue } from "../en";

export default {
  title: "Créer un compte",
  name: "Nom",
  email: "E-mail",
  username: "Nom d’utilisateur (facultatif)",
  usernameHint: "Pour vous connecter avec un nom d’utilisateur plutôt qu’avec votre e-mail.",
  password: "Mot de passe",
  ruleMin: "Au moins {count} caractères",
  ruleMax: "Au plus {count} caractères",
  ruleMet: "(respectée)",
  ruleUnmet: "(pas encore respectée)",
  enterName: "Saisissez votre nom.",
  meetRules: "Choisissez un mot de passe qui respecte les règles ci-dessous.",
  submit: "Créer le compte",
  submitting: "Création de votre compte…",
  haveAccount: "Vous avez déjà un compte ?",
  signIn: "Se connecter",
  checkEmailTitle: "Consultez vos e-mails",
  checkEmail: "Nous avons envoyé un lien à {email}. Ouvrez-le pour confirmer votre adresse, puis connectez-vous.",
} satisfies Catalogue["signUp"];
