/* The page in the players' language. The server chose the language (the switch's cookie, else
   the browser's languages) and loaded its catalog before this script as CRIBCAM_CATALOG: the
   same gettext catalogs as the server's, so every page script says things the same way.
   t("{name} wins", { name }) looks a message up and fills it; tc() takes a context, tn() a
   count (the language's plural forms); tx() fills in elements too (a card chip). Numbers are
   written as the language writes them. English is the message ids themselves. */
"use strict";
const CATALOG = window.CRIBCAM_CATALOG || { lang: "en", plurals: { one: 0, other: 1 }, messages: {} };
const LANG = CATALOG.lang;
// the language's plural categories, each mapped by the server to its catalog's form (no eval:
// the page's content security policy allows none)
const PLURAL_RULES = new Intl.PluralRules(LANG);
const pluralForm = (n) => CATALOG.plurals[PLURAL_RULES.select(n)] ?? (n === 1 ? 0 : 1);
const NUMBERS = new Intl.NumberFormat(LANG);

/* A number in the language's own format; `digits`: exactly that many decimals. */
function num(value, digits) {
  if (digits === undefined) return NUMBERS.format(value);
  return new Intl.NumberFormat(LANG, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/* A fraction as a whole percentage, as the language writes it ("93%", "93 %"). */
function pct(fraction) {
  return new Intl.NumberFormat(LANG, { style: "percent", maximumFractionDigits: 0 }).format(fraction);
}

function fillParts(text, values) {
  return text.split(/\{(\w+)\}/).map((part, i) => {
    if (i % 2 === 0) return part;
    if (!(part in values)) return `{${part}}`;
    const value = values[part];
    return typeof value === "number" ? num(value) : value;
  }).filter((part) => part !== "");
}
function fill(text, values) { return fillParts(text, values).map(String).join(""); }

function t(message, values = {}) { return fill(CATALOG.messages[message] || message, values); }
function tc(context, message, values = {}) {
  return fill(CATALOG.messages[`${context}\u0004${message}`] || message, values);
}
function tn(singular, plural, n, values = {}) {
  const forms = CATALOG.messages[singular];
  const text = Array.isArray(forms) ? forms[pluralForm(n)] || forms[forms.length - 1] : n === 1 ? singular : plural;
  return fill(text, { n, ...values });
}
/* t() as a list of strings and elements, for el(): a value may be an element (a card chip). */
function tx(message, values = {}) { return fillParts(CATALOG.messages[message] || message, values); }
