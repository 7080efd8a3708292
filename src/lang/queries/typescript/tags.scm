; TypeScript and TSX definitions (one query serves both grammars).

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
; Overload signatures and `declare function` have no body.
(function_signature name: (identifier) @name) @declaration.function

(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body name: (property_identifier) @name @definition.enum_member)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.enum_member)

; `namespace N {}` and `declare module "m" {}`.
(internal_module name: [(identifier) (nested_identifier) (string)] @name) @definition.module
(module name: [(identifier) (nested_identifier) (string)] @name) @definition.module

; Class members: the constructor, methods (accessors, generators, private `#m`), overload and
; abstract signatures, and properties. A property holding a function is a method.
(class_body
  (method_definition
    name: (property_identifier) @name
    (#eq? @name "constructor")) @definition.constructor)
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
(class_body (method_signature name: [(property_identifier) (private_property_identifier)] @name) @declaration.method)
(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @declaration.method
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.property

; Interface members, and those of a type alias's object type (`type Options = {retries: number}`,
; also as a part of an intersection: `type A = B & {x: number}`).
(interface_body (method_signature name: (property_identifier) @name) @declaration.method)
(interface_body (property_signature name: (property_identifier) @name) @definition.property)
(type_alias_declaration value: (object_type (method_signature name: (property_identifier) @name) @declaration.method))
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @definition.property))
(type_alias_declaration value: (intersection_type (object_type (method_signature name: (property_identifier) @name) @declaration.method)))
(type_alias_declaration value: (intersection_type (object_type (property_signature name: (property_identifier) @name) @definition.property)))

; Module-level bindings, in the file or a namespace, exported or not: a function or class value
; makes a function or class, `const` a constant, `let` and `var` a variable. The patterns for
; constants and variables exclude each other so that `const a = 1, b = 2` gives each name once.
; Where a binding sits is checked by the extractor (`#parent-is?`, `#grandparent-is?`): a copy
; of each pattern per place made this query slower to compile (56 ms, now 45).

([(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
  (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
  (export_statement declaration: [(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
                                 (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))])] @definition.function
  (#parent-is? @definition.function program))
([(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
  (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
  (export_statement declaration: [(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
                                 (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))])] @definition.function
  (#parent-is? @definition.function statement_block)
  (#grandparent-is? @definition.function internal_module module))
([(lexical_declaration (variable_declarator name: (identifier) @name value: (class)))
  (variable_declaration (variable_declarator name: (identifier) @name value: (class)))
  (export_statement declaration: [(lexical_declaration (variable_declarator name: (identifier) @name value: (class)))
                                 (variable_declaration (variable_declarator name: (identifier) @name value: (class)))])] @definition.class
  (#parent-is? @definition.class program))
([(lexical_declaration (variable_declarator name: (identifier) @name value: (class)))
  (variable_declaration (variable_declarator name: (identifier) @name value: (class)))
  (export_statement declaration: [(lexical_declaration (variable_declarator name: (identifier) @name value: (class)))
                                 (variable_declaration (variable_declarator name: (identifier) @name value: (class)))])] @definition.class
  (#parent-is? @definition.class statement_block)
  (#grandparent-is? @definition.class internal_module module))
([(lexical_declaration kind: "const" (variable_declarator name: (identifier) @name))
  (export_statement declaration: (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)))] @definition.constant
  (#parent-is? @definition.constant program))
([(lexical_declaration kind: "const" (variable_declarator name: (identifier) @name))
  (export_statement declaration: (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)))] @definition.constant
  (#parent-is? @definition.constant statement_block)
  (#grandparent-is? @definition.constant internal_module module))
([(lexical_declaration kind: "let" (variable_declarator name: (identifier) @name))
  (variable_declaration (variable_declarator name: (identifier) @name))
  (export_statement declaration: [(lexical_declaration kind: "let" (variable_declarator name: (identifier) @name))
                                 (variable_declaration (variable_declarator name: (identifier) @name))])] @definition.variable
  (#parent-is? @definition.variable program))
([(lexical_declaration kind: "let" (variable_declarator name: (identifier) @name))
  (variable_declaration (variable_declarator name: (identifier) @name))
  (export_statement declaration: [(lexical_declaration kind: "let" (variable_declarator name: (identifier) @name))
                                 (variable_declaration (variable_declarator name: (identifier) @name))])] @definition.variable
  (#parent-is? @definition.variable statement_block)
  (#grandparent-is? @definition.variable internal_module module))

; `declare const X: T;` only declares.
(program (ambient_declaration (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)) @declaration.constant))
(program (ambient_declaration [(lexical_declaration kind: "let" (variable_declarator name: (identifier) @name))
                               (variable_declaration (variable_declarator name: (identifier) @name))] @declaration.variable))

; References, for the symbol graph: calls and instantiations, imports (`import ... from "x"`,
; `export ... from "x"`, `require("x")`, `import("x")`), the names an import brings in, and every
; other name read (identifiers and member names). Parameters and local bindings are local to
; their function; an import's alias is no reference, nor an object literal's key unless the
; object is a call's argument: then the key names a member of that parameter's type
; (`persist(fn, {name: "x"})`; its qualifier says which call and argument: `persist()#1`).
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
; A default import's name is the name it reads the module by (`import ky from "./index"`).
(import_clause (identifier) @name @reference.name)
(call_expression arguments: (arguments (object (pair key: (property_identifier) @name)))) @reference.name
((identifier) @name @reference.name
  (#not-any-of? @name "undefined" "arguments" "require" "module" "exports"))
(member_expression property: [(property_identifier) (private_property_identifier)] @name) @reference.name
(shorthand_property_identifier) @name @reference.name
(formal_parameters [(required_parameter pattern: (identifier) @local.definition)
                     (optional_parameter pattern: (identifier) @local.definition)
                     (required_parameter pattern: (rest_pattern (identifier) @local.definition))
                     (required_parameter pattern: (object_pattern (shorthand_property_identifier_pattern) @local.definition))])
(type_identifier) @name @reference.type
; An indexed access type names a member of the type before the brackets
; (`StoreApi<S>['setState']`).
(lookup_type (_) (literal_type (string (string_fragment) @name))) @reference.type
(type_parameter name: (type_identifier) @local.definition)
(infer_type (type_identifier) @local.definition)
(mapped_type_clause name: (type_identifier) @local.definition)
(variable_declarator name: (identifier) @local.definition)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @local.definition))
(variable_declarator name: (array_pattern (identifier) @local.definition))
(for_in_statement left: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(arrow_function parameter: (identifier) @local.definition)
