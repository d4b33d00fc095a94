import type { Catalogue } from "../en";

export default {
  language: "Idioma",
  cancel: "Cancelar",
  dismiss: "Cerrar",
  unreachable: "No se pudo contactar con el servidor. Comprueba tu conexión e inténtalo de nuevo.",
  tooManyRequestsWait: "Demasiados intentos. Espera {wait} y vuelve a intentarlo.",
  tryAgainIn: "Reintentar en {seconds} s",
  suspended: "Tu cuenta está suspendida.",
  suspendedUntil: "Tu cuenta está suspendida hasta el {date}.",
} satisfies Catalogue["common"];
