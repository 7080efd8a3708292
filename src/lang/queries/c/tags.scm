; C definitions.

(function_definition
  declarator: [(function_declarator declarator: (identifier) @name)
               (function_declarator declarator: (parenthesized_declarator (identifier) @name))
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
               ; `void (*signal(int sig, void (*f)(int)))(int)`: a function returning a function pointer.
               (function_declarator declarator: (parenthesized_declarator
                  (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))))]) @definition.function

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
                              (array_declarator declarator: (type_identifier) @name)
                              (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
                              ; `typedef void *(alloc_fn)(size_t)`, `typedef int (name)(int)`
                              (function_declarator declarator: (parenthesized_declarator (type_identifier) @name))
                              (pointer_declarator declarator: (function_declarator declarator: (parenthesized_declarator (type_identifier) @name)))]) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; File-scope variables.
(translation_unit (declaration declarator: [(identifier) @name
                                            (init_declarator declarator: (identifier) @name)
                                            (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
                                            (init_declarator declarator: (array_declarator declarator: (identifier) @name))
                                            (array_declarator declarator: (identifier) @name)
                                            (pointer_declarator declarator: (identifier) @name)]) @definition.variable)

; References, for the symbol graph: calls, includes, type names, and functions passed as
; values (call arguments, initializer values such as `.open = foo_open`). Parameters and local
; declarations are local to their function. No catch-all identifier capture: the index of a
; tree the size of Linux must stay small.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(preproc_include path: [(string_literal) (system_lib_string)] @name) @reference.import
(type_identifier) @name @reference.type
(argument_list (identifier) @name) @reference.name
(initializer_pair value: (identifier) @name) @reference.name
(init_declarator value: (identifier) @name) @reference.name
(parameter_declaration declarator: [(identifier) @local.definition
                                    (pointer_declarator declarator: (identifier) @local.definition)
                                    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
                                    (array_declarator declarator: (identifier) @local.definition)])
(compound_statement (declaration declarator: [(identifier) @local.definition
                                              (init_declarator declarator: (identifier) @local.definition)
                                              (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
                                              (pointer_declarator declarator: (identifier) @local.definition)
                                              (array_declarator declarator: (identifier) @local.definition)
                                              (init_declarator declarator: (array_declarator declarator: (identifier) @local.definition))]))
