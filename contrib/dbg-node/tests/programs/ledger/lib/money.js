"use strict";

function money(cents) {
  const whole = Math.floor(cents / 100); // @money
  return `$${whole}.${String(cents % 100).padStart(2, "0")}`;
}

module.exports = { money };
