; C definitions.

(function_definition
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))]) @definition.function

; Prototypes are declarations: a definition of the same name wins.
(declaration
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))]) @declaration.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member
(field_declaration_list (field_declaration declarator: [(field_identifier) @name
                                                        (pointer_declarator declarator: (field_identifier) @name)
                                                        (array_declarator declarator: (field_identifier) @name)]) @definition.field)

(type_definition declarator: [(type_identifier) @name
                              (pointer_declarator declarator: (type_identifier) @name)
                              (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; File-scope variables.
(translation_unit (declaration declarator: [(identifier) @name
                                            (init_declarator declarator: (identifier) @name)
                                            (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
                                            (init_declarator declarator: (array_declarator declarator: (identifier) @name))
                                            (array_declarator declarator: (identifier) @name)
                                            (pointer_declarator declarator: (identifier) @name)]) @definition.variable)

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
