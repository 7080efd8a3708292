; Groovy definitions (scripts, classes, Gradle build files, Jenkinsfiles).

; `package a.b` has no body: it qualifies the types declared after it in the file.
(source_file
  (package_declaration name: (_) @context)
  (class_declaration name: (identifier) @name) @definition.class)
(source_file
  (package_declaration name: (_) @context)
  (record_declaration name: (identifier) @name) @definition.class)
(source_file
  (package_declaration name: (_) @context)
  (interface_declaration name: (identifier) @name) @definition.interface)
(source_file
  (package_declaration name: (_) @context)
  (annotation_type_declaration name: (identifier) @name) @definition.interface)
(source_file
  (package_declaration name: (_) @context)
  (trait_declaration name: (identifier) @name) @definition.trait)
(source_file
  (package_declaration name: (_) @context)
  (enum_declaration name: (identifier) @name) @definition.enum)
(source_file
  (package_declaration name: (_) @context)
  (method_declaration name: (_) @name) @definition.function)

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(trait_declaration name: (identifier) @name) @definition.trait
(enum_declaration name: (identifier) @name) @definition.enum
(enum_constant name: (identifier) @name) @definition.enum_member

; A script's top-level `def f() {}` is a function; in a type body it is a method, and one
; without a body (interface, abstract) is a declaration.
(source_file (method_declaration name: (_) @name) @definition.function)
(constructor_declaration name: (identifier) @name) @definition.constructor
(method_declaration name: (_) @name body: (_)) @definition.method
(method_declaration name: (_) @name !body) @declaration.method

; `static final` fields are constants; a field with an access modifier is a field; one
; without is a Groovy property (it gets a getter and setter).
(field_declaration "static" "final" (variable_declarator name: (identifier) @name)) @definition.constant
(field_declaration ["private" "protected" "public"] (variable_declarator name: (identifier) @name)) @definition.field
(field_declaration (variable_declarator name: (identifier) @name)) @definition.property
(record_declaration
  components: (record_components (record_component name: (identifier) @name) @definition.field))

; References.
(method_invocation function: (identifier) @name) @reference.call
(method_invocation function: (field_access field: (identifier) @name)) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.class

; Imports, for the symbol graph: the module or path as written.
(import_declaration name: (qualified_name) @name) @reference.import
