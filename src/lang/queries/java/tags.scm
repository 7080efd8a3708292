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
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.class
