; TypeScript and TSX definitions (one query serves both grammars).
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in; the nodes inside a pattern's outermost one are
; wildcards where they would be many (`(_ name: ...)`, which tree-sitter does not analyse),
; and the extractor checks their kinds (`#kind-is?`) and where a pattern's node sits
; (`#parent-is?`, `#grandparent-is?`): the query took 0.13 s to compile with them named.

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
((enum_assignment name: (property_identifier) @name) @definition.enum_member
  (#parent-is? @definition.enum_member enum_body))

; `namespace N {}` and `declare module "m" {}`.
(internal_module name: [(identifier) (nested_identifier) (string)] @name) @definition.module
(module name: [(identifier) (nested_identifier) (string)] @name) @definition.module

; Class members: the constructor, methods (accessors, generators, private `#m`), overload and
; abstract signatures, and properties. A property holding a function is a method.
((method_definition name: (property_identifier) @name) @definition.constructor
  (#eq? @name "constructor")
  (#parent-is? @definition.constructor class_body))
((method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
  (#parent-is? @definition.method class_body))
((method_signature name: [(property_identifier) (private_property_identifier)] @name) @declaration.method
  (#parent-is? @declaration.method class_body))
(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @declaration.method
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.property

; Interface members, and those of a type alias's object type (`type Options = {retries: number}`,
; also as a part of an intersection: `type A = B & {x: number}`).
((method_signature name: (property_identifier) @name) @declaration.method
  (#parent-is? @declaration.method interface_body))
((property_signature name: (property_identifier) @name) @definition.property
  (#parent-is? @definition.property interface_body))
((type_alias_declaration value: (_ (_ name: (property_identifier) @name) @declaration.method) @_object)
  (#kind-is? @_object object_type) (#kind-is? @declaration.method method_signature))
((type_alias_declaration value: (_ (_ name: (property_identifier) @name) @definition.property) @_object)
  (#kind-is? @_object object_type) (#kind-is? @definition.property property_signature))
((type_alias_declaration value: (_ (_ (_ name: (property_identifier) @name) @declaration.method) @_object) @_and)
  (#kind-is? @_and intersection_type) (#kind-is? @_object object_type) (#kind-is? @declaration.method method_signature))
((type_alias_declaration value: (_ (_ (_ name: (property_identifier) @name) @definition.property) @_object) @_and)
  (#kind-is? @_and intersection_type) (#kind-is? @_object object_type) (#kind-is? @definition.property property_signature))

; Module-level bindings, in the file or a namespace, exported or not: a function or class value
; makes a function or class, `const` a constant, `let` and `var` a variable. The patterns for
; constants and variables exclude each other so that `const a = 1, b = 2` gives each name once.
; Where a binding sits is checked by the extractor (`#parent-is?`, `#grandparent-is?`): a copy
; of each pattern per place made this query slower to compile.

([(lexical_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
  (variable_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
  (export_statement declaration: [(lexical_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
                                 (variable_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)])] @definition.function
  (#parent-is? @definition.function program)
  (#kind-is? @_binding variable_declarator))
([(lexical_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
  (variable_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
  (export_statement declaration: [(lexical_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)
                                 (variable_declaration (_ name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @_binding)])] @definition.function
  (#parent-is? @definition.function statement_block)
  (#grandparent-is? @definition.function internal_module module)
  (#kind-is? @_binding variable_declarator))
([(lexical_declaration (_ name: (identifier) @name value: (class)) @_binding)
  (variable_declaration (_ name: (identifier) @name value: (class)) @_binding)
  (export_statement declaration: [(lexical_declaration (_ name: (identifier) @name value: (class)) @_binding)
                                 (variable_declaration (_ name: (identifier) @name value: (class)) @_binding)])] @definition.class
  (#parent-is? @definition.class program)
  (#kind-is? @_binding variable_declarator))
([(lexical_declaration (_ name: (identifier) @name value: (class)) @_binding)
  (variable_declaration (_ name: (identifier) @name value: (class)) @_binding)
  (export_statement declaration: [(lexical_declaration (_ name: (identifier) @name value: (class)) @_binding)
                                 (variable_declaration (_ name: (identifier) @name value: (class)) @_binding)])] @definition.class
  (#parent-is? @definition.class statement_block)
  (#grandparent-is? @definition.class internal_module module)
  (#kind-is? @_binding variable_declarator))
([(lexical_declaration kind: "const" (_ name: (identifier) @name) @_binding)
  (export_statement declaration: (lexical_declaration kind: "const" (_ name: (identifier) @name) @_binding))] @definition.constant
  (#parent-is? @definition.constant program)
  (#kind-is? @_binding variable_declarator))
([(lexical_declaration kind: "const" (_ name: (identifier) @name) @_binding)
  (export_statement declaration: (lexical_declaration kind: "const" (_ name: (identifier) @name) @_binding))] @definition.constant
  (#parent-is? @definition.constant statement_block)
  (#grandparent-is? @definition.constant internal_module module)
  (#kind-is? @_binding variable_declarator))
([(lexical_declaration kind: "let" (_ name: (identifier) @name) @_binding)
  (variable_declaration (_ name: (identifier) @name) @_binding)
  (export_statement declaration: [(lexical_declaration kind: "let" (_ name: (identifier) @name) @_binding)
                                 (variable_declaration (_ name: (identifier) @name) @_binding)])] @definition.variable
  (#parent-is? @definition.variable program)
  (#kind-is? @_binding variable_declarator))
([(lexical_declaration kind: "let" (_ name: (identifier) @name) @_binding)
  (variable_declaration (_ name: (identifier) @name) @_binding)
  (export_statement declaration: [(lexical_declaration kind: "let" (_ name: (identifier) @name) @_binding)
                                 (variable_declaration (_ name: (identifier) @name) @_binding)])] @definition.variable
  (#parent-is? @definition.variable statement_block)
  (#grandparent-is? @definition.variable internal_module module)
  (#kind-is? @_binding variable_declarator))

; `declare const X: T;` only declares.
((ambient_declaration (lexical_declaration kind: "const" (_ name: (identifier) @name) @_binding) @declaration.constant) @_ambient
  (#parent-is? @_ambient program)
  (#kind-is? @_binding variable_declarator))
((ambient_declaration [(lexical_declaration kind: "let" (_ name: (identifier) @name) @_binding)
                       (variable_declaration (_ name: (identifier) @name) @_binding)] @declaration.variable) @_ambient
  (#parent-is? @_ambient program)
  (#kind-is? @_binding variable_declarator))

; References, for the symbol graph: calls and instantiations, imports (`import ... from "x"`,
; `export ... from "x"`, `require("x")`, `import("x")`), the names an import brings in, and every
; other name read (identifiers and member names). Parameters and local bindings are local to
; their function; an import's alias is no reference, nor an object literal's key unless the
; object is a call's argument: then the key names a member of that parameter's type
; (`persist(fn, {name: "x"})`; its qualifier says which call and argument: `persist()#1`).
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
; A default import's name is the name it reads the module by (`import ky from "./index"`).
(import_clause (identifier) @name @reference.name)
((call_expression arguments: (_ (object (pair key: (property_identifier) @name))) @_arguments) @reference.name
  (#kind-is? @_arguments arguments))
((identifier) @name @reference.name
  (#not-any-of? @name "undefined" "arguments" "require" "module" "exports"))
(member_expression property: [(property_identifier) (private_property_identifier)] @name) @reference.name
(shorthand_property_identifier) @name @reference.name
((formal_parameters [(_ pattern: (identifier) @local.definition) @_parameter
                      (_ pattern: (_ (identifier) @local.definition) @_rest) @_required
                      (_ pattern: (_ (shorthand_property_identifier_pattern) @local.definition) @_object) @_required])
  (#kind-is? @_parameter required_parameter optional_parameter) (#kind-is? @_required required_parameter)
  (#kind-is? @_rest rest_pattern) (#kind-is? @_object object_pattern))
(type_identifier) @name @reference.type
; An indexed access type names a member of the type before the brackets
; (`StoreApi<S>['setState']`).
((lookup_type (_) (_ (_ (string_fragment) @name) @_string) @_literal) @reference.type
  (#kind-is? @_literal literal_type) (#kind-is? @_string string))
(type_parameter name: (type_identifier) @local.definition)
(infer_type (type_identifier) @local.definition)
(mapped_type_clause name: (type_identifier) @local.definition)
(variable_declarator name: (identifier) @local.definition)
((variable_declarator name: (_ (shorthand_property_identifier_pattern) @local.definition) @_object)
  (#kind-is? @_object object_pattern))
((variable_declarator name: (_ (identifier) @local.definition) @_array)
  (#kind-is? @_array array_pattern))
(for_in_statement left: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(arrow_function parameter: (identifier) @local.definition)
