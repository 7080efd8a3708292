; C# definitions.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ name: ...)`, which tree-sitter does not analyse) whose kinds the extractor
; checks (`#kind-is?`). With them named, the query took 95 ms to compile.

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
((record_declaration (parameter_list (_ name: (identifier) @name) @definition.property))
  (#kind-is? @definition.property parameter))

; Fields, one per declarator; `const` fields are constants.
((field_declaration
   (modifier) @_const
   (_ (_ name: (identifier) @name) @_declarator) @_variable) @definition.constant
  (#eq? @_const "const")
  (#kind-is? @_variable variable_declaration) (#kind-is? @_declarator variable_declarator))
((field_declaration (_ (_ name: (identifier) @name) @_declarator) @_variable) @definition.field
  (#kind-is? @_variable variable_declaration) (#kind-is? @_declarator variable_declarator))
((event_field_declaration (_ (_ name: (identifier) @name) @_declarator) @_variable) @definition.field
  (#kind-is? @_variable variable_declaration) (#kind-is? @_declarator variable_declarator))

; References, for the call graph.
((invocation_expression function: [(identifier) @name (_ name: (identifier) @name) @_member]) @reference.call
  (#kind-is? @_member member_access_expression))
(object_creation_expression type: (identifier) @name) @reference.class

; Imports, for the symbol graph: the module or path as written.
(using_directive [(identifier) (qualified_name)] @name) @reference.import
