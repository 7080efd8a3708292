; PHP definitions.

; `namespace App\Billing;` has no body: it names everything after it in the file, which the
; patterns below say with @context. These come first so they win over the generic patterns.
(program
  (namespace_definition name: (namespace_name) @context !body)
  (function_definition name: (name) @name) @definition.function)
(program
  (namespace_definition name: (namespace_name) @context !body)
  (class_declaration name: (name) @name) @definition.class)
(program
  (namespace_definition name: (namespace_name) @context !body)
  (interface_declaration name: (name) @name) @definition.interface)
(program
  (namespace_definition name: (namespace_name) @context !body)
  (trait_declaration name: (name) @name) @definition.trait)
(program
  (namespace_definition name: (namespace_name) @context !body)
  (enum_declaration name: (name) @name) @definition.enum)
(program
  (namespace_definition name: (namespace_name) @context !body)
  (const_declaration (const_element (name) @name) @definition.constant))

; Namespaces, with or without a braced body.
(namespace_definition name: (namespace_name) @name) @definition.module

(function_definition name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(enum_case name: (name) @name) @definition.enum_member

; Methods: the constructor, abstract and interface methods (no body) are declarations.
(method_declaration name: (name) @name (#match? @name "^__construct$")) @definition.constructor
(method_declaration name: (name) @name !body) @declaration.method
(method_declaration name: (name) @name body: (_)) @definition.method

; Class, interface and namespace constants; properties (named without their `$`).
(const_declaration (const_element (name) @name) @definition.constant)
(property_declaration (property_element name: (variable_name (name) @name)) @definition.property)

; `define('NAME', value)` defines a global constant wherever it is called.
(function_call_expression
  function: (name) @_define
  arguments: (arguments . (argument (string (string_content) @name)))
  (#eq? @_define "define")) @definition.constant

; References.
(function_call_expression function: (name) @name) @reference.call
(member_call_expression name: (name) @name) @reference.call
(scoped_call_expression name: (name) @name) @reference.call
(object_creation_expression (name) @name) @reference.class

; Imports, for the symbol graph: the module or path as written.
(namespace_use_clause [(name) (qualified_name)] @name) @reference.import
