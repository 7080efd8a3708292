; C definitions.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ declarator: ...)`, which tree-sitter does not analyse) whose kinds the
; extractor checks (`#kind-is?`), as it checks where a pattern's node sits (`#parent-is?`):
; @_fn is a `function_declarator`, @_ptr a `pointer_declarator`, @_arr an `array_declarator`,
; @_paren a `parenthesized_declarator`, @_init an `init_declarator`. With them named, the
; query took 46 ms to compile, paid by every process that parses C.

((function_definition
   declarator: [(_ declarator: (identifier) @name) @_fn
                (_ declarator: (_ (identifier) @name) @_paren) @_fn
                (_ declarator: (_ declarator: (identifier) @name) @_fn) @_ptr
                (_ declarator: (_ declarator: (_ declarator: (identifier) @name) @_fn) @_ptr) @_ptr
                ; `void (*signal(int sig, void (*f)(int)))(int)`: a function returning a function pointer.
                (_ declarator: (_
                   (_ declarator: (_ declarator: (identifier) @name) @_fn) @_ptr) @_paren) @_fn]) @definition.function
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_paren parenthesized_declarator))

; Prototypes are declarations: a definition of the same name wins.
((declaration
   declarator: [(_ declarator: (identifier) @name) @_fn
                (_ declarator: (_ declarator: (identifier) @name) @_fn) @_ptr]) @declaration.function
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator))

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member
((field_declaration declarator: [(field_identifier) @name
                                 (_ declarator: (field_identifier) @name) @_ptr_or_arr]) @definition.field
  (#parent-is? @definition.field field_declaration_list)
  (#kind-is? @_ptr_or_arr pointer_declarator array_declarator))

((type_definition declarator: [(type_identifier) @name
                               (_ declarator: (type_identifier) @name) @_ptr_or_arr
                               (_ declarator: (_ (_ declarator: (type_identifier) @name) @_ptr) @_paren) @_fn
                               ; `typedef void *(alloc_fn)(size_t)`, `typedef int (name)(int)`
                               (_ declarator: (_ (type_identifier) @name) @_paren) @_fn
                               (_ declarator: (_ declarator: (_ (type_identifier) @name) @_paren) @_fn) @_ptr]) @definition.type
  (#kind-is? @_ptr_or_arr pointer_declarator array_declarator) (#kind-is? @_ptr pointer_declarator)
  (#kind-is? @_fn function_declarator) (#kind-is? @_paren parenthesized_declarator))

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; File-scope variables.
; (`translation_unit` stays the outermost node: with `#parent-is?` every local declaration of
; every function would be matched and then refused.)
((translation_unit (declaration declarator: [(identifier) @name
                                             (_ declarator: (identifier) @name) @_init
                                             (_ declarator: (_ declarator: (identifier) @name) @_ptr_or_arr) @_init
                                             (_ declarator: (identifier) @name) @_ptr_or_arr]) @definition.variable)
  (#kind-is? @_init init_declarator) (#kind-is? @_ptr_or_arr pointer_declarator array_declarator))

; References, for the symbol graph: calls, includes, type names, and functions passed as
; values (call arguments, initializer values such as `.open = foo_open`). Parameters and local
; declarations are local to their function. No catch-all identifier capture: the index of a
; tree the size of Linux must stay small.
((call_expression function: [(identifier) @name (_ field: (field_identifier) @name) @_field]) @reference.call
  (#kind-is? @_field field_expression))
(preproc_include path: [(string_literal) (system_lib_string)] @name) @reference.import
(type_identifier) @name @reference.type
(argument_list (identifier) @name) @reference.name
(initializer_pair value: (identifier) @name) @reference.name
(init_declarator value: (identifier) @name) @reference.name
((parameter_declaration declarator: [(identifier) @local.definition
                                     (_ declarator: (identifier) @local.definition) @_ptr_or_arr
                                     (_ declarator: (_ declarator: (identifier) @local.definition) @_ptr) @_ptr])
  (#kind-is? @_ptr_or_arr pointer_declarator array_declarator) (#kind-is? @_ptr pointer_declarator))
((compound_statement (declaration declarator: [(identifier) @local.definition
                                               (_ declarator: (identifier) @local.definition) @_init
                                               (_ declarator: (_ declarator: (identifier) @local.definition) @_ptr_or_arr) @_init
                                               (_ declarator: (identifier) @local.definition) @_ptr_or_arr]))
  (#kind-is? @_init init_declarator) (#kind-is? @_ptr_or_arr pointer_declarator array_declarator))
