// ESLint for the pages' modules (service/pages/*.js: native ES modules the browser loads as they
// are) and their unit tests (tests/js/, run by `node --test`). Pinned in package-lock.json; run
// by `make lint` (npm run lint).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["service/pages/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      // Small functions: renderBoard was 221 lines with 113 branches before it was taken apart.
      "max-lines-per-function": ["error", { max: 60 }],
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      "no-empty": ["error", { allowEmptyCatch: true }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-implicit-globals": "error",
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
];
