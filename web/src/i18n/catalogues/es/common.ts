import type { Catalogue } from "../en";

export default {
  language: "Idioma",
  cancel: "Cancelar",
  dismiss: "Cerrar",
  unreachable: "No se pudo contactar con el servidor. Comprueba tu conexión e inténtalo de nuevo.",
  pageTitle: "{title} · Auth Platform",
  errorPage: {
    title: "Algo ha salido mal",
    unknown: "Algo ha salido mal y no se ha podido completar la solicitud.",
    code: "Código de error:",
    back: "Volver a la aplicación",
  },
  notFound: {
    title: "Página no encontrada",
    text: "No hay ninguna página en esta dirección.",
  },
  requestFailed: "La solicitud ha fallado ({status}).",
  passwordRules: {
    min: "Al menos {count} caracteres",
    max: "Como máximo {count} caracteres",
  },
  avatar: {
    unreadable: "Este archivo no es una imagen que podamos leer. Elige una imagen PNG, JPEG, GIF o WebP.",
    tooLarge: "La imagen ocupa más de {megabytes} MB. Elige una más pequeña.",
    notAnImage: "Este archivo no es una imagen. Elige una imagen PNG, JPEG, GIF o WebP.",
    tooComplex: "No se ha podido reducir lo suficiente esta imagen. Prueba con una imagen más sencilla.",
  },
} satisfies Catalogue["common"];
