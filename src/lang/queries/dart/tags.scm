; Dart definitions.

; Types. A mixin is reported as a trait; extensions and extension types as classes.
(class_declaration name: (identifier) @name) @definition.class
(mixin_declaration name: (identifier) @name) @definition.trait
(extension_declaration name: (identifier) @name) @definition.class
(extension_type_declaration name: (extension_type_name (identifier) @name)) @definition.class
(enum_declaration name: (identifier) @name) @definition.enum
(enum_entry name: (identifier) @name) @definition.enum_member
(type_alias (type_identifier) @name) @definition.type

; Top-level functions, getters and setters.
(function_declaration signature: (function_signature name: (identifier) @name)) @definition.function
(getter_declaration signature: (getter_signature name: (identifier) @name)) @definition.function
(setter_declaration signature: (setter_signature name: (identifier) @name)) @definition.function
(external_function_declaration signature: (function_signature name: (identifier) @name)) @declaration.function

; Top-level variables: `const` and `final` ones are constants.
(top_level_variable_declaration
  (static_final_declaration_list (static_final_declaration name: (identifier) @name))) @definition.constant
(top_level_variable_declaration
  "final"
  (initialized_identifier_list (initialized_identifier name: (identifier) @name))) @definition.constant
(top_level_variable_declaration
  (initialized_identifier_list (initialized_identifier name: (identifier) @name))) @definition.variable

; Constructors: `Point(...)` is named `Point`, `Point.origin(...)` is named `origin`.
(method_declaration
  signature: (method_signature
    [(constructor_signature name: (identifier) name: (identifier) @name)
     (constructor_signature . name: (identifier) @name . parameters: (_))
     (factory_constructor_signature name: (identifier) name: (identifier) @name)
     (factory_constructor_signature . name: (identifier) @name . parameters: (_))])) @definition.constructor
(declaration
  [(constructor_signature name: (identifier) name: (identifier) @name)
   (constructor_signature . name: (identifier) @name . parameters: (_))
   (constant_constructor_signature name: (identifier) name: (identifier) @name)
   (constant_constructor_signature . name: (identifier) @name . parameters: (_))
   (redirecting_factory_constructor_signature name: (identifier) name: (identifier) @name)
   (redirecting_factory_constructor_signature . name: (identifier) @name . parameters: (_))]) @definition.constructor

; Methods, getters, setters and operators with a body; abstract and external ones without.
(method_declaration
  signature: (method_signature
    [(function_signature name: (identifier) @name)
     (getter_signature name: (identifier) @name)
     (setter_signature name: (identifier) @name)
     (operator_signature operator: _ @name)])) @definition.method
(declaration
  [(function_signature name: (identifier) @name)
   (getter_signature name: (identifier) @name)
   (setter_signature name: (identifier) @name)
   (operator_signature operator: _ @name)]) @declaration.method

; Fields: `static const` and `static final` ones are constants.
(declaration
  (static_final_declaration_list (static_final_declaration name: (identifier) @name))) @definition.constant
(declaration
  (initialized_identifier_list (initialized_identifier name: (identifier) @name))) @definition.field
(declaration
  (identifier_list (identifier) @name)) @definition.field

; References.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (identifier) @name)) @reference.call

; Imports, for the symbol graph: the module or path as written.
(library_import (import_specification uri: (configurable_uri (uri (string_literal) @name)))) @reference.import
(import_specification alias: (identifier) @reference.none)
