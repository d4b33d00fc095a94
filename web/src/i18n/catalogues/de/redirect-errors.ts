import type { Catalogue } from "../en";

export default {
  token_expired: "Dieser Link ist abgelaufen. Fordern Sie einen neuen an und verwenden Sie ihn innerhalb einer Stunde.",
  invalid_token: "Dieser Link ist ungültig. Vielleicht wurde er bereits verwendet oder unvollständig kopiert.",
  INVALID_TOKEN: "Dieser Link ist ungültig. Vielleicht wurde er bereits verwendet oder ist abgelaufen.",
  user_not_found: "Das Konto, für das dieser Link gesendet wurde, wurde nicht gefunden.",
  unauthorized: "Melden Sie sich mit dem Konto an, an das dieser Link gesendet wurde, und öffnen Sie den Link dann erneut.",
  invalid_callback_request: "Die Anmeldeanfrage war ungültig. Bitte beginnen Sie von vorn.",
  state_not_found: "Die Anmeldung hat zu lange gedauert oder wurde in einem anderen Browser begonnen. Bitte beginnen Sie von vorn.",
  please_restart_the_process: "Die Anmeldung konnte nicht abgeschlossen werden. Bitte beginnen Sie von vorn.",
  no_code: "Der Anmeldeanbieter hat keinen Autorisierungscode gesendet. Bitte beginnen Sie von vorn.",
  oauth_provider_not_found: "Dieser Anmeldeanbieter ist nicht verfügbar.",
  unable_to_get_user_info: "Der Anmeldeanbieter hat Ihr Profil nicht mit uns geteilt.",
  email_not_found: "Der Anmeldeanbieter hat keine E-Mail-Adresse mit uns geteilt.",
  "email_doesn't_match": "Die E-Mail-Adresse dieses Anbieterkontos stimmt nicht mit der dieses Kontos überein.",
  unable_to_link_account: "Dieses Anbieterkonto konnte nicht mit diesem Konto verknüpft werden.",
  account_not_linked: "Diese E-Mail-Adresse gehört bereits zu einem Konto. Melden Sie sich zuerst damit an und verknüpfen Sie den Anbieter dann auf Ihrer Kontoseite.",
  unable_to_create_user: "Ihr Konto konnte nicht angelegt werden. Bitte versuchen Sie es später erneut.",
  unable_to_create_session: "Sie konnten nicht angemeldet werden. Bitte versuchen Sie es später erneut.",
  internal_server_error: "Bei uns ist ein Fehler aufgetreten. Bitte versuchen Sie es später erneut.",
} satisfies Catalogue["redirectErrors"];
