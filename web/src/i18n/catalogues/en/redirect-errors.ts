/**
 * A readable sentence for each redirect error code (docs/http-api.md#redirect-error-codes): the `error` of
 * `/error?error={code}` and the one the gateway adds to a callback URL. Keyed by the code as the gateway
 * sends it (lower case but for the reset landing's INVALID_TOKEN).
 */
export default {
  token_expired: "This link has expired. Ask for a new one and use it within the hour.",
  invalid_token: "This link is not valid. It may have been used already or copied incompletely.",
  INVALID_TOKEN: "This link is not valid. It may have been used already or have expired.",
  user_not_found: "We could not find the account this link was sent for.",
  unauthorized: "Sign in with the account this link was sent to, then open the link again.",
  invalid_callback_request: "The sign-in request was not valid. Please start again.",
  state_not_found: "The sign-in took too long or was started in another browser. Please start again.",
  please_restart_the_process: "The sign-in could not be completed. Please start again.",
  no_code: "The sign-in provider did not send an authorization code. Please start again.",
  oauth_provider_not_found: "This sign-in provider is not available.",
  unable_to_get_user_info: "The sign-in provider did not share your profile with us.",
  email_not_found: "The sign-in provider did not share an email address with us.",
  "email_doesn't_match": "The email address of that provider account does not match this account.",
  unable_to_link_account: "That provider account could not be linked to this account.",
  account_not_linked: "An account already uses this email address. Sign in with it first, then link the provider from your account page.",
  unable_to_create_user: "Your account could not be created. Please try again later.",
  unable_to_create_session: "You could not be signed in. Please try again later.",
  internal_server_error: "Something went wrong on our side. Please try again later.",
  new_user_signup_disabled: "There is no account with this address, and new accounts cannot be created this way.",
  failed_to_create_user: "Your account could not be created. Please try again later.",
  failed_to_create_session: "You could not be signed in. Please try again later.",
};
