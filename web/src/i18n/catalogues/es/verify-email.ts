import type { Catalogue } from "../en";

export default {
  title: "Verificación del correo",
  verifying: "Verificando tu dirección de correo…",
  loading: "Cargando…",
  notYet: "Tu dirección de correo aún no está verificada. Abre el enlace que te enviamos.",
  verified: "Tu dirección de correo está verificada.",
  checkNewTitle: "Revisa tu nueva dirección",
  checkNew: "El cambio está aprobado: tu cuenta ahora usa {email}. Te hemos enviado allí un enlace: ábrelo para verificar tu nueva dirección.",
  changedTitle: "Dirección de correo cambiada",
  changed: "Tu dirección de correo está cambiada y verificada.",
  toAccount: "Ir a tu cuenta",
  signIn: "Iniciar sesión",
} satisfies Catalogue["verifyEmail"];
