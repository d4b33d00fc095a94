import type { Catalogue } from "../en";

export default {
  forgotTitle: "¿Has olvidado tu contraseña?",
  forgotIntro: "Escribe la dirección de correo de tu cuenta y te enviaremos un enlace para elegir una contraseña nueva.",
  email: "Correo electrónico",
  send: "Enviar enlace",
  sending: "Enviando…",
  sent: "Si alguna cuenta usa esta dirección, se le ha enviado un enlace para restablecer la contraseña",
  backToSignIn: "Volver a iniciar sesión",
  resetTitle: "Restablecer tu contraseña",
  noToken:
    "Esta página no tiene enlace de restablecimiento: al abrirlo, el enlace se quita de la dirección, así que al recargar se pierde. Vuelve a abrir el enlace de tu correo o pide uno nuevo.",
  askAgain: "Pedir un enlace nuevo",
  chooseTitle: "Elige una contraseña nueva",
  newPassword: "Contraseña nueva",
  meetRules: "Elige una contraseña que cumpla las reglas de abajo.",
  save: "Guardar la contraseña nueva",
  saving: "Guardando…",
  changedTitle: "Contraseña cambiada",
  changed: "Tu contraseña se ha cambiado. Ya puedes iniciar sesión con ella.",
  signIn: "Iniciar sesión",
} satisfies Catalogue["passwordReset"];
