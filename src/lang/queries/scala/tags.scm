; Scala definitions (Scala 2 and 3).
;
; Objects are singleton classes (`class`), like Kotlin's. A package with a body encloses its
; definitions and qualifies them; `package a.b` on its own line does not, like Java's.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in, at up to 20 ms each on Scala's grammar: the
; nodes inside a pattern's outermost one are wildcards (`(_ name: ...)`, which tree-sitter does
; not analyse) whose kinds the extractor checks (`#kind-is?`), as it checks where a pattern's
; node sits (`#parent-is?`, `#grandparent-is?`). With them named, the query took 0.3 s.

(package_clause name: (package_identifier) @name body: (template_body)) @definition.module
(package_object name: (identifier) @name) @definition.module
(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(simple_enum_case name: (identifier) @name) @definition.enum_member
(full_enum_case name: (identifier) @name) @definition.enum_member
(type_definition name: (type_identifier) @name) @definition.type

; An extension's methods are qualified by the extended type (`Account.describe`).
((extension_definition
   parameters: (_
                 (_ type: [(type_identifier) @name
                           (_ type: (type_identifier) @name) @_generic]) @_parameter) @_parameters) @scope
  (#kind-is? @_parameters parameters) (#kind-is? @_parameter parameter) (#kind-is? @_generic generic_type))
((function_definition name: (identifier) @name) @definition.method
  (#parent-is? @definition.method extension_definition))
((function_definition name: (identifier) @name) @definition.method
  (#parent-is? @definition.method template_body)
  (#grandparent-is? @definition.method extension_definition))

; Members of classes, objects, traits and enums. `def this(...)` is an auxiliary constructor; a
; `def` without a body (abstract) only declares.
(function_definition name: (identifier) @name (#eq? @name "this")) @definition.constructor
; Members of a class, object, trait or enum (the kinds are checked by the extractor: one copy
; of each pattern per kind made this query take 0.3 s to compile).
((function_definition name: (_) @name) @definition.method
  (#parent-is? @definition.method template_body enum_body)
  (#grandparent-is? @definition.method class_definition object_definition trait_definition enum_definition))
((function_declaration name: (_) @name) @declaration.method
  (#parent-is? @declaration.method template_body enum_body)
  (#grandparent-is? @declaration.method class_definition object_definition trait_definition enum_definition))
(function_definition name: (_) @name) @definition.function
(function_declaration name: (_) @name) @declaration.function

; `val`/`var` members are properties, as are `val`/`var` class parameters and every parameter
; of a case class.
([(val_definition pattern: [(identifier) @name (_ (identifier) @name) @_identifiers])
  (var_definition pattern: [(identifier) @name (_ (identifier) @name) @_identifiers])
  (val_declaration name: (_) @name)
  (var_declaration name: (_) @name)] @definition.property
  (#parent-is? @definition.property template_body enum_body)
  (#grandparent-is? @definition.property class_definition object_definition trait_definition enum_definition)
  (#kind-is? @_identifiers identifiers))
(class_parameter ["val" "var"] name: (_) @name) @definition.property
((class_definition "case" class_parameters: (_ (_ name: (_) @name) @definition.property) @_parameters)
  (#kind-is? @_parameters class_parameters) (#kind-is? @definition.property class_parameter))

; Top-level (Scala 3) and package-level values are the package's variables.
([(val_definition pattern: [(identifier) @name (_ (identifier) @name) @_identifiers])
  (var_definition pattern: [(identifier) @name (_ (identifier) @name) @_identifiers])] @definition.variable
  (#parent-is? @definition.variable compilation_unit)
  (#kind-is? @_identifiers identifiers))
([(val_definition pattern: [(identifier) @name (_ (identifier) @name) @_identifiers])
  (var_definition pattern: [(identifier) @name (_ (identifier) @name) @_identifiers])] @definition.variable
  (#parent-is? @definition.variable template_body)
  (#grandparent-is? @definition.variable package_clause package_object)
  (#kind-is? @_identifiers identifiers))

; References, for the call graph.
((call_expression function: [(identifier) @name (_ field: (identifier) @name) @_field]) @reference.call
  (#kind-is? @_field field_expression))
(instance_expression (type_identifier) @name) @reference.class

; Imports, for the symbol graph: the module or path as written.
(import_declaration) @name @reference.import
