import type { Catalogue } from "../en";

export default {
  title: "Crear una cuenta",
  name: "Nombre",
  email: "Correo electrónico",
  username: "Nombre de usuario (opcional)",
  usernameHint: "Te permite iniciar sesión con un nombre de usuario en lugar de tu correo.",
  password: "Contraseña",
  ruleMin: "Al menos {count} caracteres",
  ruleMax: "Como máximo {count} caracteres",
  ruleMet: "(cumplida)",
  ruleUnmet: "(aún no cumplida)",
  enterName: "Escribe tu nombre.",
  meetRules: "Elige una contraseña que cumpla las reglas de abajo.",
  submit: "Crear cuenta",
  submitting: "Creando tu cuenta…",
  haveAccount: "¿Ya tienes una cuenta?",
  signIn: "Iniciar sesión",
  checkEmailTitle: "Revisa tu correo",
  checkEmail: "Te hemos enviado un enlace a {email}. Ábrelo para verificar tu dirección y después inicia sesión.",
} satisfies Catalogue["signUp"];
