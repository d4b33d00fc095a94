import type { Catalogue } from "../en";

export default {
  title: "Iniciar sesión sin contraseña",
  email: "Correo electrónico",
  sendLink: "Enviarme un enlace de inicio de sesión",
  sendCode: "Enviarme un código",
  sending: "Enviando…",
  linkSent: "Si {email} puede iniciar sesión aquí, le llegará un enlace. Solo sirve una vez y durante unos minutos.",
  codeTitle: "Introduce tu código",
  codeIntro: "Si {email} puede usarlo, le llegará un código de seis cifras. Solo sirve una vez y durante unos minutos.",
  noEmail: "Pide primero un código en la pantalla de inicio de sesión.",
  code: "Código",
  signIn: "Iniciar sesión",
  signingIn: "Iniciando sesión…",
  resend: "Enviar un código nuevo",
  codeResent: "Va de camino un código nuevo; el anterior ya no sirve.",
  backToSignIn: "Volver al inicio de sesión",
  resetByCode: "Enviarme un código en su lugar",
  resetIntro: "Introduce la dirección de correo de tu cuenta y te enviaremos un código para elegir una contraseña nueva.",
} satisfies Catalogue["mailSignIn"];
