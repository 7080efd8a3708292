// A CommonJS module with prototype-based classes.
"use strict";

const VERSION = 2; // @def constant VERSION

function Legacy(name) { // @def function Legacy
  this.name = name;
}

Legacy.prototype.describe = function () { // @def method Legacy.describe
  return "legacy " + this.name;
};

Legacy.prototype.reset = () => {}; // @def method Legacy.reset

exports.createLegacy = function (name) { // @def function createLegacy
  return new Legacy(name);
};

module.exports.VERSION_LABEL = () => "v" + VERSION; // @def function VERSION_LABEL
