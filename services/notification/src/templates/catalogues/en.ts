/**
 * The mails in English: the source of every key. Each template's messages are under its name; `letter`
 * holds what every mail shares. A {placeholder} is filled with the named value (the app's name, a
 * variable); every other catalogue has the same keys and the same placeholders per message (templates.test.ts).
 */
const en = {
  letter: {
    greeting: "Hi {name},",
    greetingWithoutName: "Hi,",
    pasteLink: "Or paste this link into your browser:",
  },
  "email-verification": {
    subject: "Verify your email address for {appName}",
    heading: "Verify your email address",
    intro: "Please confirm that {email} is your email address for {appName} by following the link below.",
    introWithoutEmail: "Please confirm that this is your email address for {appName} by following the link below.",
    action: "Verify email address",
    outro: "If you did not create an account with {appName}, you can ignore this email.",
  },
  "password-reset": {
    subject: "Reset your {appName} password",
    heading: "Reset your password",
    intro: "Someone asked to reset the password of your {appName} account. Follow the link below to choose a new one.",
    action: "Reset password",
    outro: "If you did not ask for this, you can ignore this email: your password stays as it is.",
  },
  "change-email": {
    subject: "Approve the change of your {appName} email address (step 1 of 2)",
    heading: "Step 1 of 2: approve the change of your email address",
    intro:
      "You asked to change the email address of your {appName} account from this address to {newEmail}. Open the link below in a browser where you are signed in to approve the change. Then we will send a link to {newEmail} to confirm the new address (step 2 of 2).",
    introWithoutNewEmail:
      "You asked to change the email address of your {appName} account. Open the link below in a browser where you are signed in to approve the change. Then we will send a link to the new address to confirm it (step 2 of 2).",
    action: "Approve the change",
    outro: "If you did not ask for this, you can ignore this email: your address stays as it is.",
  },
  "change-email-new-address": {
    subject: "Confirm your new email address for {appName} (step 2 of 2)",
    heading: "Step 2 of 2: confirm your new email address",
    intro: "The email address of your {appName} account is now {email}. Follow the link below to confirm that this address is yours; until you do, it stays unverified.",
    action: "Confirm the new address",
    outro: "If you did not ask for this, someone may have typed your address by mistake; you can ignore this email.",
  },
  "delete-account": {
    subject: "Confirm deleting your {appName} account",
    heading: "Confirm deleting your account",
    intro: "You asked to delete your {appName} account. Deleting it removes the account and its data, and cannot be undone.",
    action: "Delete my account",
    outro: "If you did not ask for this, ignore this email and your account stays as it is. Consider changing your password.",
  },
  "organization-invitation": {
    subjectByInviter: "{inviter} invited you to join {organization} on {appName}",
    subject: "You are invited to join {organization} on {appName}",
    heading: "Join {organization}",
    introByInviter: "{inviter} invited you to join the organization {organization} on {appName}.",
    introByInviterWithRole: "{inviter} invited you to join the organization {organization} on {appName} as {role}.",
    intro: "You have been invited to join the organization {organization} on {appName}.",
    introWithRole: "You have been invited to join the organization {organization} on {appName} as {role}.",
    unnamed: "(no name)",
    action: "Accept invitation",
    sentBy:
      "This email was sent by {appName}, the sign-in service of this organization. The organization's and the inviter's names were typed by its members; {appName} did not check them.",
    notExpected: "If you were not expecting this invitation, you can ignore this email.",
  },
  "sign-in-code": {
    subject: "Your sign-in code for {appName}",
    heading: "Your sign-in code",
    intro: "Enter this code to sign in to {appName}. It can be used once.",
    action: "Sign in",
    outro: "If you did not try to sign in, you can ignore this email. Someone may have typed your address by mistake.",
  },
  "magic-link": {
    subject: "Your sign-in link for {appName}",
    heading: "Sign in to {appName}",
    intro: "Follow this link to sign in to {appName}. It works once, and only for a few minutes.",
    action: "Sign in",
    outro: "If you did not ask to sign in, you can ignore this email. Someone may have typed your address by mistake.",
  },
  "email-otp": {
    "sign-in": {
      subject: "Your sign-in code for {appName}",
      heading: "Your sign-in code",
      intro: "Enter this code to sign in to {appName}. It works once, and only for a few minutes.",
      action: "Sign in",
      outro: "If you did not try to sign in, you can ignore this email. Someone may have typed your address by mistake.",
    },
    "email-verification": {
      subject: "Your verification code for {appName}",
      heading: "Verify your email address",
      intro: "Enter this code in {appName} to confirm this address is yours. It works once, and only for a few minutes.",
      action: "Verify",
      outro: "If you did not ask for this, you can ignore this email.",
    },
    "forget-password": {
      subject: "Your password reset code for {appName}",
      heading: "Reset your password",
      intro: "Enter this code in {appName} to choose a new password. It works once, and only for a few minutes.",
      action: "Reset password",
      outro: "If you did not ask to reset your password, you can ignore this email: your password stays as it is.",
    },
  },
};

/** A catalogue: the English one's shape, every message a string. */
type Shape<T> = { [K in keyof T]: T[K] extends string ? string : Shape<T[K]> };
export type MailCatalogue = Shape<typeof en>;

export default en as MailCatalogue;
