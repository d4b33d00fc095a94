/** The mails in French ("vous"). */
import type { MailCatalogue } from "./en.js";

export default {
  letter: {
    greeting: "Bonjour {name},",
    greetingWithoutName: "Bonjour,",
    pasteLink: "Ou collez ce lien dans votre navigateur :",
  },
  "email-verification": {
    subject: "Confirmez votre adresse e-mail pour {appName}",
    heading: "Confirmez votre adresse e-mail",
    intro: "Veuillez confirmer que {email} est bien votre adresse e-mail pour {appName} en suivant le lien ci-dessous.",
    introWithoutEmail: "Veuillez confirmer qu'il s'agit bien de votre adresse e-mail pour {appName} en suivant le lien ci-dessous.",
    action: "Confirmer l'adresse e-mail",
    outro: "Si vous n'avez pas créé de compte sur {appName}, vous pouvez ignorer cet e-mail.",
  },
  "password-reset": {
    subject: "Réinitialisez votre mot de passe {appName}",
    heading: "Réinitialisez votre mot de passe",
    intro: "Quelqu'un a demandé la réinitialisation du mot de passe de votre compte {appName}. Suivez le lien ci-dessous pour en choisir un nouveau.",
    action: "Réinitialiser le mot de passe",
    outro: "Si vous n'êtes pas à l'origine de cette demande, vous pouvez ignorer cet e-mail : votre mot de passe reste inchangé.",
  },
  "change-email": {
    subject: "Approuvez le changement de votre adresse e-mail {appName} (étape 1 sur 2)",
    heading: "Étape 1 sur 2 : approuvez le changement de votre adresse e-mail",
    intro:
      "Vous avez demandé à remplacer cette adresse par {newEmail} pour votre compte {appName}. Ouvrez le lien ci-dessous dans un navigateur où votre session est ouverte pour approuver ce changement. Nous enverrons ensuite à {newEmail} un lien pour confirmer la nouvelle adresse (étape 2 sur 2).",
    introWithoutNewEmail:
      "Vous avez demandé à changer l'adresse e-mail de votre compte {appName}. Ouvrez le lien ci-dessous dans un navigateur où votre session est ouverte pour approuver ce changement. Nous enverrons ensuite à la nouvelle adresse un lien pour la confirmer (étape 2 sur 2).",
    action: "Approuver le changement",
    outro: "Si vous n'êtes pas à l'origine de cette demande, vous pouvez ignorer cet e-mail : votre adresse reste inchangée.",
  },
  "change-email-new-address": {
    subject: "Confirmez votre nouvelle adresse e-mail pour {appName} (étape 2 sur 2)",
    heading: "Étape 2 sur 2 : confirmez votre nouvelle adresse e-mail",
    intro:
      "L'adresse e-mail de votre compte {appName} est désormais {email}. Suivez le lien ci-dessous pour confirmer que cette adresse est bien la vôtre ; d'ici là, elle reste non vérifiée.",
    action: "Confirmer la nouvelle adresse",
    outro: "Si vous n'êtes pas à l'origine de cette demande, quelqu'un a peut-être saisi votre adresse par erreur ; vous pouvez ignorer cet e-mail.",
  },
  "delete-account": {
    subject: "Confirmez la suppression de votre compte {appName}",
    heading: "Confirmez la suppression de votre compte",
    intro: "Vous avez demandé la suppression de votre compte {appName}. La suppression efface le compte et ses données, et ne peut pas être annulée.",
    action: "Supprimer mon compte",
    outro: "Si vous n'êtes pas à l'origine de cette demande, ignorez cet e-mail : votre compte reste tel quel. Pensez à changer votre mot de passe.",
  },
  "organization-invitation": {
    subjectByInviter: "{inviter} vous invite à rejoindre {organization} sur {appName}",
    subject: "Vous avez reçu une invitation à rejoindre {organization} sur {appName}",
    heading: "Rejoignez {organization}",
    introByInviter: "{inviter} vous invite à rejoindre l'organisation {organization} sur {appName}.",
    introByInviterWithRole: "{inviter} vous invite à rejoindre l'organisation {organization} sur {appName} en tant que {role}.",
    intro: "Vous avez reçu une invitation à rejoindre l'organisation {organization} sur {appName}.",
    introWithRole: "Vous avez reçu une invitation à rejoindre l'organisation {organization} sur {appName} en tant que {role}.",
    unnamed: "(sans nom)",
    action: "Accepter l'invitation",
    sentBy:
      "Cet e-mail a été envoyé par {appName}, le service de connexion de cette organisation. Les noms de l'organisation et de la personne qui vous invite ont été saisis par ses membres ; {appName} ne les a pas vérifiés.",
    notExpected: "Si vous n'attendiez pas cette invitation, vous pouvez ignorer cet e-mail.",
  },
  "sign-in-code": {
    subject: "Votre code de connexion pour {appName}",
    heading: "Votre code de connexion",
    intro: "Saisissez ce code pour vous connecter à {appName}. Il ne peut servir qu'une seule fois.",
    action: "Se connecter",
    outro: "Si vous n'avez pas essayé de vous connecter, vous pouvez ignorer cet e-mail. Quelqu'un a peut-être saisi votre adresse par erreur.",
  },
  "magic-link": {
    subject: "Votre lien de connexion pour {appName}",
    heading: "Se connecter à {appName}",
    intro: "Suivez ce lien pour vous connecter à {appName}. Il ne sert qu'une fois, et seulement pendant quelques minutes.",
    action: "Se connecter",
    outro: "Si vous n'avez pas demandé à vous connecter, vous pouvez ignorer cet e-mail. Quelqu'un a peut-être saisi votre adresse par erreur.",
  },
  "email-otp": {
    "sign-in": {
      subject: "Votre code de connexion pour {appName}",
      heading: "Votre code de connexion",
      intro: "Saisissez ce code pour vous connecter à {appName}. Il ne sert qu'une fois, et seulement pendant quelques minutes.",
      action: "Se connecter",
      outro: "Si vous n'avez pas essayé de vous connecter, vous pouvez ignorer cet e-mail. Quelqu'un a peut-être saisi votre adresse par erreur.",
    },
    "email-verification": {
      subject: "Votre code de vérification pour {appName}",
      heading: "Vérifiez votre adresse e-mail",
      intro: "Saisissez ce code dans {appName} pour confirmer que cette adresse est la vôtre. Il ne sert qu'une fois, et seulement pendant quelques minutes.",
      action: "Vérifier",
      outro: "Si vous n'avez rien demandé, vous pouvez ignorer cet e-mail.",
    },
    "forget-password": {
      subject: "Votre code de réinitialisation du mot de passe pour {appName}",
      heading: "Réinitialisez votre mot de passe",
      intro: "Saisissez ce code dans {appName} pour choisir un nouveau mot de passe. Il ne sert qu'une fois, et seulement pendant quelques minutes.",
      action: "Réinitialiser le mot de passe",
      outro: "Si vous n'avez pas demandé de réinitialisation, vous pouvez ignorer cet e-mail : votre mot de passe reste inchangé.",
    },
  },
} satisfies MailCatalogue;
