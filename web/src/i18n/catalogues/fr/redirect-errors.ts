import type { Catalogue } from "../en";

export default {
  token_expired: "Ce lien a expiré. Demandez-en un nouveau et utilisez-le dans l'heure.",
  invalid_token: "Ce lien n'est pas valide. Il a peut-être déjà été utilisé ou mal copié.",
  INVALID_TOKEN: "Ce lien n'est pas valide. Il a peut-être déjà été utilisé ou a expiré.",
  user_not_found: "Le compte pour lequel ce lien a été envoyé est introuvable.",
  unauthorized: "Connectez-vous avec le compte auquel ce lien a été envoyé, puis ouvrez à nouveau le lien.",
  invalid_callback_request: "La demande de connexion n'était pas valide. Veuillez recommencer.",
  state_not_found: "La connexion a pris trop de temps ou a été commencée dans un autre navigateur. Veuillez recommencer.",
  please_restart_the_process: "La connexion n'a pas pu aboutir. Veuillez recommencer.",
  no_code: "Le fournisseur de connexion n'a pas envoyé de code d'autorisation. Veuillez recommencer.",
  oauth_provider_not_found: "Ce fournisseur de connexion n'est pas disponible.",
  unable_to_get_user_info: "Le fournisseur de connexion ne nous a pas transmis votre profil.",
  email_not_found: "Le fournisseur de connexion ne nous a pas transmis d'adresse e-mail.",
  "email_doesn't_match": "L'adresse e-mail de ce compte du fournisseur ne correspond pas à celle de ce compte.",
  unable_to_link_account: "Ce compte du fournisseur n'a pas pu être associé à ce compte.",
  account_not_linked: "Un compte utilise déjà cette adresse e-mail. Connectez-vous d'abord avec celui-ci, puis associez le fournisseur depuis la page de votre compte.",
  unable_to_create_user: "Votre compte n'a pas pu être créé. Veuillez réessayer plus tard.",
  unable_to_create_session: "Votre connexion n'a pas pu aboutir. Veuillez réessayer plus tard.",
  internal_server_error: "Une erreur s'est produite de notre côté. Veuillez réessayer plus tard.",
} satisfies Catalogue["redirectErrors"];
