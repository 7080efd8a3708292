; Scala definitions (Scala 2 and 3).
;
; Objects are singleton classes (`class`), like Kotlin's. A package with a body encloses its
; definitions and qualifies them; `package a.b` on its own line does not, like Java's.

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
(extension_definition
  parameters: (parameters
                (parameter type: [(type_identifier) @name
                                  (generic_type type: (type_identifier) @name)]))) @scope
(extension_definition (function_definition name: (identifier) @name) @definition.method)
(extension_definition (template_body (function_definition name: (identifier) @name) @definition.method))

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
([(val_definition pattern: [(identifier) @name (identifiers (identifier) @name)])
  (var_definition pattern: [(identifier) @name (identifiers (identifier) @name)])
  (val_declaration name: (_) @name)
  (var_declaration name: (_) @name)] @definition.property
  (#parent-is? @definition.property template_body enum_body)
  (#grandparent-is? @definition.property class_definition object_definition trait_definition enum_definition))
(class_parameter ["val" "var"] name: (_) @name) @definition.property
(class_definition "case" class_parameters: (class_parameters (class_parameter name: (_) @name) @definition.property))

; Top-level (Scala 3) and package-level values are the package's variables.
[(compilation_unit [(val_definition pattern: [(identifier) @name (identifiers (identifier) @name)])
                    (var_definition pattern: [(identifier) @name (identifiers (identifier) @name)])] @definition.variable)
 (package_clause body: (template_body [(val_definition pattern: [(identifier) @name (identifiers (identifier) @name)])
                                       (var_definition pattern: [(identifier) @name (identifiers (identifier) @name)])] @definition.variable))
 (package_object body: (template_body [(val_definition pattern: [(identifier) @name (identifiers (identifier) @name)])
                                       (var_definition pattern: [(identifier) @name (identifiers (identifier) @name)])] @definition.variable))]

; References, for the call graph.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (identifier) @name)) @reference.call
(instance_expression (type_identifier) @name) @reference.class

; Imports, for the symbol graph: the module or path as written.
(import_declaration) @name @reference.import
