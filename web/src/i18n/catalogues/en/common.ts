/** Words many screens share. */
export default {
  language: "Language",
  cancel: "Cancel",
  dismiss: "Dismiss",
  unreachable: "The server could not be reached. Check your connection and try again.",
  pageTitle: "{title} · Auth Platform",
  errorPage: {
    title: "Something went wrong",
    unknown: "Something went wrong and the request could not be completed.",
    code: "Error code:",
    back: "Back to the application",
  },
  notFound: {
    title: "Page not found",
    text: "There is no page at this address.",
  },
  requestFailed: "The request failed ({status}).",
  passwordRules: {
    min: "At least {count} characters",
    max: "At most {count} characters",
  },
  avatar: {
    unreadable: "This file is not an image we can read. Choose a PNG, JPEG, GIF or WebP picture.",
    tooLarge: "The image is larger than {megabytes} MB. Choose a smaller one.",
    notAnImage: "This file is not an image. Choose a PNG, JPEG, GIF or WebP picture.",
    tooComplex: "This image could not be made small enough. Try a simpler picture.",
  },
};
