; Java definitions.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_constant name: (identifier) @name) @definition.enum_member

; A record's components are its fields.
(record_declaration parameters: (formal_parameters (formal_parameter name: (identifier) @name) @definition.field))

(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor

; Abstract and interface methods, and annotation elements, have no body.
(method_declaration name: (identifier) @name body: (block)) @definition.method
(method_declaration name: (identifier) @name !body) @declaration.method
(annotation_type_element_declaration name: (identifier) @name) @declaration.method

; Fields, one per declarator (`int a, b;`); interface fields are implicitly constants.
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant

; References, for the call graph.
; References, for the symbol graph: calls, instantiations, imports, type names, method
; references (`Foo::bar`), names passed as arguments and field reads. Parameters, local
; variables, loop and catch variables and type parameters are local.
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: [(type_identifier) @name
                                   (generic_type (type_identifier) @name)
                                   (scoped_type_identifier (type_identifier) @name .)]) @reference.class
(import_declaration [(scoped_identifier) (identifier)] @name) @reference.import
(type_identifier) @name @reference.type
(method_reference . (_) (identifier) @name) @reference.name
(argument_list (identifier) @name) @reference.name
(field_access field: (identifier) @name) @reference.name
(formal_parameter name: (identifier) @local.definition)
(catch_formal_parameter name: (identifier) @local.definition)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local.definition))
(enhanced_for_statement name: (identifier) @local.definition)
(lambda_expression parameters: (identifier) @local.definition)
(inferred_parameters (identifier) @local.definition)
(type_parameter (type_identifier) @local.definition)
