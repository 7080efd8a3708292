; Kotlin definitions. The grammar has few field names: names are found by position and type.

(class_declaration "interface" (type_identifier) @name) @definition.interface
(class_declaration (type_identifier) @name (enum_class_body)) @definition.enum
(class_declaration (type_identifier) @name) @definition.class
; Objects are singleton classes; an unnamed companion object is not a symbol, so its members
; are qualified by the enclosing class (`Book.parse`).
(object_declaration (type_identifier) @name) @definition.class
(companion_object (type_identifier) @name) @definition.class
(enum_entry (simple_identifier) @name) @definition.enum_member
(type_alias (type_identifier) @name) @definition.type

; Members: a function without a body (abstract, in an interface) only declares.
(class_body (function_declaration (simple_identifier) @name (function_body)) @definition.method)
(enum_class_body (function_declaration (simple_identifier) @name (function_body)) @definition.method)
(class_body (function_declaration (simple_identifier) @name) @declaration.method)
(enum_class_body (function_declaration (simple_identifier) @name) @declaration.method)
(secondary_constructor "constructor" @name) @definition.constructor

; Extension functions are qualified by their receiver type (`String.toIsbn`).
(function_declaration
  receiver: (receiver_type
              [(user_type (type_identifier) @context .)
               (user_type (type_identifier) @context . (type_arguments))
               (nullable_type (user_type (type_identifier) @context .))
               (nullable_type (user_type (type_identifier) @context . (type_arguments)))])
  (simple_identifier) @name
  (function_body)) @definition.function
(function_declaration (simple_identifier) @name (function_body)) @definition.function
; `expect` and `external` functions have no body.
(source_file (function_declaration (simple_identifier) @name) @declaration.function)

; Properties: `val`/`var` constructor parameters and class members; `const val` is a constant.
(class_parameter (binding_pattern_kind) (simple_identifier) @name) @definition.property
(class_body
  (property_declaration
    (modifiers (property_modifier) @_const)
    (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @_const "const"))
(enum_class_body
  (property_declaration
    (modifiers (property_modifier) @_const)
    (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @_const "const"))
(class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.property)
(enum_class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.property)

; Top-level properties are the file's constants and variables.
(source_file
  (property_declaration
    (modifiers (property_modifier) @_const)
    (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @_const "const"))
(source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.variable)

; References, for the call graph.
(call_expression (simple_identifier) @name) @reference.call
(call_expression (navigation_expression (navigation_suffix (simple_identifier) @name))) @reference.call
(constructor_invocation (user_type (type_identifier) @name)) @reference.class

; Imports, for the symbol graph: the module or path as written.
(import_header (identifier) @name) @reference.import
