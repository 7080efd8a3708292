; Kotlin definitions. The grammar has few field names: names are found by position and type.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ ...)`, which tree-sitter does not analyse) whose kinds the extractor checks
; (`#kind-is?`), as it checks where a pattern's node sits (`#parent-is?`). With them named,
; the query took 0.19 s to compile.

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
((function_declaration (simple_identifier) @name (function_body)) @definition.method
  (#parent-is? @definition.method class_body enum_class_body))
((function_declaration (simple_identifier) @name) @declaration.method
  (#parent-is? @declaration.method class_body enum_class_body))
(secondary_constructor "constructor" @name) @definition.constructor

; Extension functions are qualified by their receiver type (`String.toIsbn`).
((function_declaration
   receiver: (_
               [(_ (type_identifier) @context .) @_user
                (_ (type_identifier) @context . (type_arguments)) @_user
                (_ (_ (type_identifier) @context .) @_user) @_nullable
                (_ (_ (type_identifier) @context . (type_arguments)) @_user) @_nullable]) @_receiver
   (simple_identifier) @name
   (function_body)) @definition.function
  (#kind-is? @_receiver receiver_type) (#kind-is? @_user user_type) (#kind-is? @_nullable nullable_type))
(function_declaration (simple_identifier) @name (function_body)) @definition.function
; `expect` and `external` functions have no body.
((function_declaration (simple_identifier) @name) @declaration.function
  (#parent-is? @declaration.function source_file))

; Properties: `val`/`var` constructor parameters and class members; `const val` is a constant.
(class_parameter (binding_pattern_kind) (simple_identifier) @name) @definition.property
((property_declaration
   (modifiers (property_modifier) @_const)
   (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @_const "const")
  (#parent-is? @definition.constant class_body enum_class_body))
((property_declaration (variable_declaration (simple_identifier) @name)) @definition.property
  (#parent-is? @definition.property class_body enum_class_body))

; Top-level properties are the file's constants and variables.
((property_declaration
   (modifiers (property_modifier) @_const)
   (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @_const "const")
  (#parent-is? @definition.constant source_file))
((property_declaration (variable_declaration (simple_identifier) @name)) @definition.variable
  (#parent-is? @definition.variable source_file))

; References, for the call graph.
(call_expression [(simple_identifier) @name
                   (navigation_expression (navigation_suffix (simple_identifier) @name))]) @reference.call
(constructor_invocation (user_type (type_identifier) @name)) @reference.class

; Imports, for the symbol graph: the module or path as written.
(import_header (identifier) @name) @reference.import
