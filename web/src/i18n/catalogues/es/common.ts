import type { Catalogue } from "../en";

export default {
  language: "Idioma",
  cancel: "Cancelar",
  dismiss: "Cerrar",
  unreachable: "No se pudo contactar con el servidor. Comprueba tu conexión e inténtalo de nuevo.",
} satisfies Catalogue["common"];
