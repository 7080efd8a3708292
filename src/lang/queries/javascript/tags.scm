; JavaScript definitions.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ ...)`, which tree-sitter does not analyse) whose kinds the extractor checks
; (`#kind-is?`), as it checks where a pattern's node sits (`#parent-is?`). With them named,
; the query took 57 ms to compile, paid by every process that parses JavaScript.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class

; Class members: the constructor, methods (getters, setters, generators, private `#m`) and
; fields, which are properties unless they hold a function.
((method_definition name: (property_identifier) @name) @definition.constructor
  (#eq? @name "constructor")
  (#parent-is? @definition.constructor class_body))
((method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
  (#parent-is? @definition.method class_body))
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.property

; Module-level bindings, exported or not: a function or class value makes a function or class,
; `const` a constant, `let` and `var` a variable.
; (`program` stays the outermost node: with `#parent-is? program` every binding of every
; function would be matched and then refused.)
((program
   [(lexical_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
    (variable_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
    (export_statement declaration: [(lexical_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
                                   (variable_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)])] @definition.function)
  (#kind-is? @_binding variable_declarator))
((program
   [(lexical_declaration (_ name: (identifier) @name value: (class)) @_binding)
    (variable_declaration (_ name: (identifier) @name value: (class)) @_binding)
    (export_statement declaration: [(lexical_declaration (_ name: (identifier) @name value: (class)) @_binding)
                                   (variable_declaration (_ name: (identifier) @name value: (class)) @_binding)])] @definition.class)
  (#kind-is? @_binding variable_declarator))
((program
   [(lexical_declaration kind: "const" (_ name: (identifier) @name) @_binding)
    (export_statement declaration: (lexical_declaration kind: "const" (_ name: (identifier) @name) @_binding))] @definition.constant)
  (#kind-is? @_binding variable_declarator))
((program
   [(lexical_declaration kind: "let" (_ name: (identifier) @name) @_binding)
    (variable_declaration (_ name: (identifier) @name) @_binding)
    (export_statement declaration: [(lexical_declaration kind: "let" (_ name: (identifier) @name) @_binding)
                                   (variable_declaration (_ name: (identifier) @name) @_binding)])] @definition.variable)
  (#kind-is? @_binding variable_declarator))

; `Foo.prototype.bar = function () {}` defines a method of `Foo`.
((expression_statement
   (assignment_expression
     left: (_
             object: (_
                       object: (identifier) @context
                       property: (property_identifier) @_prototype) @_member
             property: (property_identifier) @name) @_member
     right: [(function_expression) (arrow_function)])) @definition.method
  (#eq? @_prototype "prototype")
  (#parent-is? @definition.method program)
  (#kind-is? @_member member_expression))

; CommonJS: `exports.f = function () {}` and `module.exports.f = () => {}` define functions.
((expression_statement
   (assignment_expression
     left: (_
             object: [(identifier) @_exports
                      (_
                        object: (identifier) @_module
                        property: (property_identifier) @_exports) @_member]
             property: (property_identifier) @name) @_member
     right: [(function_expression) (arrow_function)])) @definition.function
  (#eq? @_exports "exports")
  (#eq? @_module "module")
  (#parent-is? @definition.function program)
  (#kind-is? @_member member_expression))

; References, for the symbol graph: calls and instantiations, imports (`import ... from "x"`,
; `export ... from "x"`, `require("x")`, `import("x")`), the names an import brings in, and every
; other name read (identifiers and member names). Parameters and local bindings are local to
; their function; an import's alias and an object literal's keys are no references.
((call_expression function: [(identifier) @name (_ property: [(property_identifier) (private_property_identifier)] @name) @_member]) @reference.call
  (#kind-is? @_member member_expression))
((new_expression constructor: [(identifier) @name (_ property: (property_identifier) @name) @_member]) @reference.class
  (#kind-is? @_member member_expression))
(import_statement source: (string) @name) @reference.import
(export_statement source: (string) @name) @reference.import
((call_expression function: (identifier) @_require arguments: (_ . (string) @name) @_arguments) @reference.import
  (#eq? @_require "require")
  (#kind-is? @_arguments arguments))
((call_expression function: (import) arguments: (_ . (string) @name) @_arguments) @reference.import
  (#kind-is? @_arguments arguments))
(import_specifier name: (identifier) @name) @reference.name
(import_specifier alias: (identifier) @reference.none)
(namespace_import (identifier) @reference.none)
(import_clause (identifier) @reference.none)
(pair key: [(property_identifier) (private_property_identifier)] @reference.none)
((identifier) @name @reference.name
  (#not-any-of? @name "undefined" "arguments" "require" "module" "exports"))
(member_expression property: [(property_identifier) (private_property_identifier)] @name) @reference.name
(shorthand_property_identifier) @name @reference.name
((formal_parameters [(identifier) @local.definition
                      (_ left: (identifier) @local.definition) @_assignment
                      (_ (identifier) @local.definition) @_rest
                      (_ (shorthand_property_identifier_pattern) @local.definition) @_object])
  (#kind-is? @_assignment assignment_pattern) (#kind-is? @_rest rest_pattern) (#kind-is? @_object object_pattern))
(variable_declarator name: (identifier) @local.definition)
((variable_declarator name: (_ (shorthand_property_identifier_pattern) @local.definition) @_object)
  (#kind-is? @_object object_pattern))
((variable_declarator name: (_ (identifier) @local.definition) @_array)
  (#kind-is? @_array array_pattern))
(for_in_statement left: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(arrow_function parameter: (identifier) @local.definition)
