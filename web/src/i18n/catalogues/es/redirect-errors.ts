import type { Catalogue } from "../en";

export default {
  token_expired: "Este enlace ha caducado. Pide uno nuevo y úsalo antes de que pase una hora.",
  invalid_token: "Este enlace no es válido. Puede que ya se haya usado o que se haya copiado incompleto.",
  INVALID_TOKEN: "Este enlace no es válido. Puede que ya se haya usado o que haya caducado.",
  user_not_found: "No hemos encontrado la cuenta para la que se envió este enlace.",
  unauthorized: "Inicia sesión con la cuenta a la que se envió este enlace y vuelve a abrirlo.",
  invalid_callback_request: "La solicitud de inicio de sesión no era válida. Vuelve a empezar.",
  state_not_found: "El inicio de sesión tardó demasiado o se empezó en otro navegador. Vuelve a empezar.",
  please_restart_the_process: "No se ha podido completar el inicio de sesión. Vuelve a empezar.",
  no_code: "El proveedor de inicio de sesión no envió ningún código de autorización. Vuelve a empezar.",
  oauth_provider_not_found: "Este proveedor de inicio de sesión no está disponible.",
  unable_to_get_user_info: "El proveedor de inicio de sesión no ha compartido tu perfil con nosotros.",
  email_not_found: "El proveedor de inicio de sesión no ha compartido ninguna dirección de correo con nosotros.",
  "email_doesn't_match": "La dirección de correo de esa cuenta del proveedor no coincide con la de esta cuenta.",
  unable_to_link_account: "No se ha podido vincular esa cuenta del proveedor a esta cuenta.",
  account_not_linked: "Ya hay una cuenta con esta dirección de correo. Inicia sesión con ella primero y después vincula el proveedor desde la página de tu cuenta.",
  unable_to_create_user: "No se ha podido crear tu cuenta. Vuelve a intentarlo más tarde.",
  unable_to_create_session: "No se ha podido iniciar tu sesión. Vuelve a intentarlo más tarde.",
  internal_server_error: "Algo ha fallado por nuestra parte. Vuelve a intentarlo más tarde.",
} satisfies Catalogue["redirectErrors"];
