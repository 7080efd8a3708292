; JavaScript definitions.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class

; Class members: the constructor, methods (getters, setters, generators, private `#m`) and
; fields, which are properties unless they hold a function.
(class_body
  (method_definition
    name: (property_identifier) @name
    (#eq? @name "constructor")) @definition.constructor)
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.property

; Module-level bindings, exported or not: a function or class value makes a function or class,
; `const` a constant, `let` and `var` a variable.
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
   (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
   (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])))
   (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])))] @definition.function)
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name value: (class)))
   (variable_declaration (variable_declarator name: (identifier) @name value: (class)))
   (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (class))))
   (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: (class))))] @definition.class)
(program
  [(lexical_declaration kind: "const" (variable_declarator name: (identifier) @name))
   (export_statement declaration: (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)))] @definition.constant)
(program
  [(lexical_declaration kind: "let" (variable_declarator name: (identifier) @name))
   (variable_declaration (variable_declarator name: (identifier) @name))
   (export_statement declaration: (lexical_declaration kind: "let" (variable_declarator name: (identifier) @name)))
   (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name)))] @definition.variable)

; `Foo.prototype.bar = function () {}` defines a method of `Foo`.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
              object: (member_expression
                        object: (identifier) @context
                        property: (property_identifier) @_prototype)
              property: (property_identifier) @name)
      right: [(function_expression) (arrow_function)])) @definition.method
  (#eq? @_prototype "prototype"))

; CommonJS: `exports.f = function () {}` and `module.exports.f = () => {}` define functions.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
              object: [(identifier) @_exports
                       (member_expression
                         object: (identifier) @_module
                         property: (property_identifier) @_exports)]
              property: (property_identifier) @name)
      right: [(function_expression) (arrow_function)])) @definition.function
  (#eq? @_exports "exports")
  (#eq? @_module "module"))

; References, for the symbol graph: calls and instantiations, imports (`import ... from "x"`,
; `export ... from "x"`, `require("x")`, `import("x")`), the names an import brings in, and every
; other name read (identifiers and member names). Parameters and local bindings are local to
; their function; an import's alias and an object literal's keys are no references.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.class
(new_expression constructor: (member_expression property: (property_identifier) @name)) @reference.class
(import_statement source: (string) @name) @reference.import
(export_statement source: (string) @name) @reference.import
((call_expression function: (identifier) @_require arguments: (arguments . (string) @name)) @reference.import
  (#eq? @_require "require"))
(call_expression function: (import) arguments: (arguments . (string) @name)) @reference.import
(import_specifier name: (identifier) @name) @reference.name
(import_specifier alias: (identifier) @reference.none)
(namespace_import (identifier) @reference.none)
(import_clause (identifier) @reference.none)
(pair key: [(property_identifier) (private_property_identifier)] @reference.none)
((identifier) @name @reference.name
  (#not-any-of? @name "undefined" "arguments" "require" "module" "exports"))
(member_expression property: [(property_identifier) (private_property_identifier)] @name) @reference.name
(shorthand_property_identifier) @name @reference.name
(formal_parameters [(identifier) @local.definition
                     (assignment_pattern left: (identifier) @local.definition)
                     (rest_pattern (identifier) @local.definition)
                     (object_pattern (shorthand_property_identifier_pattern) @local.definition)])
(variable_declarator name: (identifier) @local.definition)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @local.definition))
(variable_declarator name: (array_pattern (identifier) @local.definition))
(for_in_statement left: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(arrow_function parameter: (identifier) @local.definition)
