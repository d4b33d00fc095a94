import type { Catalogue } from "../en";

export default {
  title: "Iniciar sesión",
  identifier: "Correo electrónico o nombre de usuario",
  password: "Contraseña",
  rememberMe: "Recordarme en este dispositivo",
  submit: "Iniciar sesión",
  submitting: "Iniciando sesión…",
  forgotPassword: "¿Has olvidado tu contraseña?",
  newHere: "¿Eres nuevo?",
  createAccount: "Crear una cuenta",
  signedOutEverywhere: "Se ha cerrado tu sesión en todos los dispositivos, también en este.",
  passwordNeeded: "Introduce tu contraseña.",
  passwordHint: "No hace falta si tu organización inicia tu sesión con su propia cuenta: déjala vacía.",
  otherServices: "Iniciar sesión con otro servicio",
  continueWith: "Continuar con {provider}",
  opening: "Abriendo {provider}…",
} satisfies Catalogue["signIn"];
