; C# definitions.

(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module

; A file-scoped namespace (`namespace A.B;`) ends before the types it holds, so they take its
; name as their context (`A.B.Program`). These patterns come first: the first pattern wins.

(compilation_unit
  (file_scoped_namespace_declaration name: (_) @context)
  (record_declaration "struct" name: (identifier) @name) @definition.struct)
(compilation_unit
  (file_scoped_namespace_declaration name: (_) @context)
  (class_declaration name: (identifier) @name) @definition.class)
(compilation_unit
  (file_scoped_namespace_declaration name: (_) @context)
  (record_declaration name: (identifier) @name) @definition.class)
(compilation_unit
  (file_scoped_namespace_declaration name: (_) @context)
  (struct_declaration name: (identifier) @name) @definition.struct)
(compilation_unit
  (file_scoped_namespace_declaration name: (_) @context)
  (interface_declaration name: (identifier) @name) @definition.interface)
(compilation_unit
  (file_scoped_namespace_declaration name: (_) @context)
  (enum_declaration name: (identifier) @name) @definition.enum)
(compilation_unit
  (file_scoped_namespace_declaration name: (_) @context)
  (delegate_declaration name: (identifier) @name) @definition.type)

(record_declaration "struct" name: (identifier) @name) @definition.struct
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(enum_member_declaration name: (identifier) @name) @definition.enum_member

; Members. A method without a body (abstract, interface, partial, extern) only declares.
(constructor_declaration name: (identifier) @name) @definition.constructor
(method_declaration name: (identifier) @name body: (_)) @definition.method
(method_declaration name: (identifier) @name !body) @declaration.method
; Operators are named by their token (`Money.+`).
(operator_declaration operator: _ @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function

(property_declaration name: (identifier) @name) @definition.property
(event_declaration name: (identifier) @name) @definition.property
; A positional record's parameters are its properties.
(record_declaration (parameter_list (parameter name: (identifier) @name) @definition.property))

; Fields, one per declarator; `const` fields are constants.
(field_declaration
  (modifier) @_const
  (variable_declaration (variable_declarator name: (identifier) @name))
  (#eq? @_const "const")) @definition.constant
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field

; References, for the call graph.
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (member_access_expression name: (identifier) @name)) @reference.call
(object_creation_expression type: (identifier) @name) @reference.class

; Imports, for the symbol graph: the module or path as written.
(using_directive [(identifier) (qualified_name)] @name) @reference.import
