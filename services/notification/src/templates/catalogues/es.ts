/** The mails in Spanish ("tú"). */
import type { MailCatalogue } from "./en.js";

export default {
  letter: {
    greeting: "Hola, {name}:",
    greetingWithoutName: "Hola:",
    pasteLink: "O pega este enlace en tu navegador:",
  },
  "email-verification": {
    subject: "Verifica tu dirección de correo para {appName}",
    heading: "Verifica tu dirección de correo",
    intro: "Confirma que {email} es tu dirección de correo para {appName} siguiendo el enlace de abajo.",
    introWithoutEmail: "Confirma que esta es tu dirección de correo para {appName} siguiendo el enlace de abajo.",
    action: "Verificar la dirección de correo",
    outro: "Si no has creado una cuenta en {appName}, puedes ignorar este correo.",
  },
  "password-reset": {
    subject: "Restablece tu contraseña de {appName}",
    heading: "Restablece tu contraseña",
    intro: "Alguien ha pedido restablecer la contraseña de tu cuenta de {appName}. Sigue el enlace de abajo para elegir una nueva.",
    action: "Restablecer la contraseña",
    outro: "Si no lo has pedido tú, puedes ignorar este correo: tu contraseña no cambia.",
  },
  "change-email": {
    subject: "Aprueba el cambio de tu dirección de correo en {appName} (paso 1 de 2)",
    heading: "Paso 1 de 2: aprueba el cambio de tu dirección de correo",
    intro:
      "Has pedido cambiar la dirección de correo de tu cuenta de {appName} de esta dirección a {newEmail}. Abre el enlace de abajo en un navegador en el que hayas iniciado sesión para aprobar el cambio. Después enviaremos a {newEmail} un enlace para confirmar la nueva dirección (paso 2 de 2).",
    introWithoutNewEmail:
      "Has pedido cambiar la dirección de correo de tu cuenta de {appName}. Abre el enlace de abajo en un navegador en el que hayas iniciado sesión para aprobar el cambio. Después enviaremos a la nueva dirección un enlace para confirmarla (paso 2 de 2).",
    action: "Aprobar el cambio",
    outro: "Si no lo has pedido tú, puedes ignorar este correo: tu dirección no cambia.",
  },
  "change-email-new-address": {
    subject: "Confirma tu nueva dirección de correo para {appName} (paso 2 de 2)",
    heading: "Paso 2 de 2: confirma tu nueva dirección de correo",
    intro:
      "La dirección de correo de tu cuenta de {appName} ahora es {email}. Sigue el enlace de abajo para confirmar que esta dirección es tuya; hasta entonces, queda sin verificar.",
    action: "Confirmar la nueva dirección",
    outro: "Si no lo has pedido tú, puede que alguien haya escrito tu dirección por error; puedes ignorar este correo.",
  },
  "delete-account": {
    subject: "Confirma la eliminación de tu cuenta de {appName}",
    heading: "Confirma la eliminación de tu cuenta",
    intro: "Has pedido eliminar tu cuenta de {appName}. Al eliminarla se borran la cuenta y sus datos, y no se puede deshacer.",
    action: "Eliminar mi cuenta",
    outro: "Si no lo has pedido tú, ignora este correo y tu cuenta seguirá como está. Te recomendamos cambiar tu contraseña.",
  },
  "organization-invitation": {
    subjectByInviter: "{inviter} te ha invitado a unirte a {organization} en {appName}",
    subject: "Te han invitado a unirte a {organization} en {appName}",
    heading: "Únete a {organization}",
    introByInviter: "{inviter} te ha invitado a unirte a la organización {organization} en {appName}.",
    introByInviterWithRole: "{inviter} te ha invitado a unirte a la organización {organization} en {appName} como {role}.",
    intro: "Te han invitado a unirte a la organización {organization} en {appName}.",
    introWithRole: "Te han invitado a unirte a la organización {organization} en {appName} como {role}.",
    unnamed: "(sin nombre)",
    action: "Aceptar la invitación",
    sentBy:
      "Este correo lo ha enviado {appName}, el servicio de inicio de sesión de esta organización. Los nombres de la organización y de quien te invita los han escrito sus miembros; {appName} no los ha comprobado.",
    notExpected: "Si no esperabas esta invitación, puedes ignorar este correo.",
  },
  "sign-in-code": {
    subject: "Tu código de inicio de sesión para {appName}",
    heading: "Tu código de inicio de sesión",
    intro: "Introduce este código para iniciar sesión en {appName}. Solo se puede usar una vez.",
    action: "Iniciar sesión",
    outro: "Si no has intentado iniciar sesión, puedes ignorar este correo. Puede que alguien haya escrito tu dirección por error.",
  },
  "magic-link": {
    subject: "Tu enlace de inicio de sesión para {appName}",
    heading: "Inicia sesión en {appName}",
    intro: "Sigue este enlace para iniciar sesión en {appName}. Solo sirve una vez y durante unos minutos.",
    action: "Iniciar sesión",
    outro: "Si no has pedido iniciar sesión, puedes ignorar este correo. Puede que alguien haya escrito tu dirección por error.",
  },
  "email-otp": {
    "sign-in": {
      subject: "Tu código de inicio de sesión para {appName}",
      heading: "Tu código de inicio de sesión",
      intro: "Introduce este código para iniciar sesión en {appName}. Solo sirve una vez y durante unos minutos.",
      action: "Iniciar sesión",
      outro: "Si no has intentado iniciar sesión, puedes ignorar este correo. Puede que alguien haya escrito tu dirección por error.",
    },
    "email-verification": {
      subject: "Tu código de verificación para {appName}",
      heading: "Verifica tu dirección de correo",
      intro: "Introduce este código en {appName} para confirmar que esta dirección es tuya. Solo sirve una vez y durante unos minutos.",
      action: "Verificar",
      outro: "Si no lo has pedido, puedes ignorar este correo.",
    },
    "forget-password": {
      subject: "Tu código para restablecer la contraseña de {appName}",
      heading: "Restablece tu contraseña",
      intro: "Introduce este código en {appName} para elegir una contraseña nueva. Solo sirve una vez y durante unos minutos.",
      action: "Restablecer contraseña",
      outro: "Si no has pedido restablecer tu contraseña, puedes ignorar este correo: tu contraseña sigue igual.",
    },
  },
} satisfies MailCatalogue;
