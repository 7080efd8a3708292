; C++ definitions.
;
; Functions and methods are found by the name inside their declarator, which may be wrapped
; in pointer or reference declarators (`Foo *make()`, `const T &get()`). When several patterns
; capture one node, the first wins: members come before free functions.
;
; Compiling a query, tree-sitter analyses every named node that holds another against all the
; parse states of the grammar it can occur in: about 7 ms each on C++'s grammar, and the nested
; declarators below would make over eighty of them (0.7 s, paid by every process that parses a
; C++ file: the first search after an edit, each hook's index). So the nodes inside a pattern's
; outermost one are wildcards (`(_ declarator: ...)`, which tree-sitter does not analyse), and
; the extractor checks their kinds (`#kind-is?`), as it checks where a pattern's node sits
; (`#parent-is?`, `#grandparent-is?`): @_fn is a `function_declarator`, @_ptr a
; `pointer_declarator`, @_ref a `reference_declarator`, @_qid a `qualified_identifier`, @_tt a
; `template_type`, @_tf a `template_function`, @_init an `init_declarator`, @_arr an
; `array_declarator`, @_paren a `parenthesized_declarator`, @_field a `field_expression`.

; --- Members defined or declared inside a class body ------------------------------------------

; A constructor is a member function without a return type.
((function_definition
   !type
   declarator: [(_ declarator: (identifier) @name) @_fn
                (_ (_ declarator: (identifier) @name) @_fn) @_ref]) @definition.constructor
  (#parent-is? @definition.constructor field_declaration_list)
  (#kind-is? @_fn function_declarator) (#kind-is? @_ref reference_declarator))
((template_declaration
   (_
     !type
     declarator: (_ declarator: (identifier) @name) @_fn) @definition.constructor)
  (#grandparent-is? @definition.constructor field_declaration_list)
  (#kind-is? @definition.constructor function_definition) (#kind-is? @_fn function_declarator))

; Methods, operators and destructors; a member template names its method by an identifier.
((function_definition
   declarator: [(_ declarator: [(field_identifier) (operator_name) (destructor_name)] @name) @_fn
                (_ declarator: (_ declarator: [(field_identifier) (operator_name) (destructor_name)] @name) @_fn) @_ptr
                (_ declarator: (_ declarator: (_ declarator: [(field_identifier) (operator_name) (destructor_name)] @name) @_fn) @_ptr) @_ptr
                (_ (_ declarator: [(field_identifier) (operator_name) (destructor_name)] @name) @_fn) @_ref]) @definition.method
  (#parent-is? @definition.method field_declaration_list)
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))
((template_declaration
   (_
     declarator: [(_ declarator: [(identifier) (field_identifier) (operator_name)] @name) @_fn
                  (_ declarator: (_ declarator: [(identifier) (field_identifier) (operator_name)] @name) @_fn) @_ptr
                  (_ (_ declarator: [(identifier) (field_identifier) (operator_name)] @name) @_fn) @_ref]) @definition.method)
  (#grandparent-is? @definition.method field_declaration_list)
  (#kind-is? @definition.method function_definition)
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))

; Member prototypes: constructors and destructors parse as `declaration`s, the rest as
; `field_declaration`s.
((declaration !type declarator: (_ declarator: (identifier) @name) @_fn) @declaration.constructor
  (#parent-is? @declaration.constructor field_declaration_list)
  (#kind-is? @_fn function_declarator))
((template_declaration
   (_ !type declarator: (_ declarator: (identifier) @name) @_fn) @declaration.constructor)
  (#grandparent-is? @declaration.constructor field_declaration_list)
  (#kind-is? @declaration.constructor declaration) (#kind-is? @_fn function_declarator))
((declaration declarator: (_ declarator: (destructor_name) @name) @_fn) @declaration.method
  (#parent-is? @declaration.method field_declaration_list)
  (#kind-is? @_fn function_declarator))
((field_declaration
   declarator: [(_ declarator: [(field_identifier) (operator_name)] @name) @_fn
                (_ declarator: (_ declarator: [(field_identifier) (operator_name)] @name) @_fn) @_ptr
                (_ declarator: (_ declarator: (_ declarator: [(field_identifier) (operator_name)] @name) @_fn) @_ptr) @_ptr
                (_ (_ declarator: [(field_identifier) (operator_name)] @name) @_fn) @_ref]) @declaration.method
  (#parent-is? @declaration.method field_declaration_list)
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))
((template_declaration
   (_
     declarator: [(_ declarator: [(identifier) (field_identifier) (operator_name)] @name) @_fn
                  (_ declarator: (_ declarator: [(identifier) (field_identifier) (operator_name)] @name) @_fn) @_ptr
                  (_ (_ declarator: [(identifier) (field_identifier) (operator_name)] @name) @_fn) @_ref]) @declaration.method)
  (#grandparent-is? @declaration.method field_declaration_list)
  (#kind-is? @declaration.method declaration)
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))

; Data members, one per declarator (`int a, b;`).
((field_declaration
   declarator: [(field_identifier) @name
                (_ declarator: (field_identifier) @name) @_ptr
                (_ declarator: (_ declarator: (field_identifier) @name) @_ptr) @_ptr
                (_ (field_identifier) @name) @_ref
                (_ declarator: (field_identifier) @name) @_arr
                (_ declarator: (_ (_ declarator: (field_identifier) @name) @_ptr) @_paren) @_fn]) @definition.field
  (#parent-is? @definition.field field_declaration_list)
  (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator) (#kind-is? @_arr array_declarator)
  (#kind-is? @_paren parenthesized_declarator) (#kind-is? @_fn function_declarator))

; --- Members defined outside their class: `Shape::area`, `Stack<T>::push` ---------------------
; The class qualifies the name through @context. Only the innermost scope of `ns::Shape::area`
; is kept: a context is one node. A qualified name may also be a namespace's function
; (`detail::distance`); the syntax cannot tell, and member definitions are far more common.

((function_definition
   declarator: (_
                 declarator: [(_
                                scope: [(namespace_identifier) @context
                                        (_ name: (type_identifier) @context) @_tt]
                                name: (identifier) @name) @_qid
                              (_
                                name: (_
                                        scope: [(namespace_identifier) @context
                                                (_ name: (type_identifier) @context) @_tt]
                                        name: (identifier) @name) @_qid) @_qid]) @_fn) @definition.constructor
  (#eq? @context @name)
  (#kind-is? @_fn function_declarator) (#kind-is? @_qid qualified_identifier) (#kind-is? @_tt template_type))

((function_definition
   declarator: [(_
                  declarator: [(_
                                 scope: [(namespace_identifier) @context
                                         (_ name: (type_identifier) @context) @_tt]
                                 name: [(identifier) (operator_name) (destructor_name)] @name) @_qid
                               (_
                                 name: (_
                                         scope: [(namespace_identifier) @context
                                                 (_ name: (type_identifier) @context) @_tt]
                                         name: [(identifier) (operator_name) (destructor_name)] @name) @_qid) @_qid]) @_fn
                (_
                  declarator: (_
                                declarator: (_
                                              scope: [(namespace_identifier) @context
                                                      (_ name: (type_identifier) @context) @_tt]
                                              name: [(identifier) (operator_name)] @name) @_qid) @_fn) @_ptr
                (_
                  (_
                    declarator: (_
                                  scope: [(namespace_identifier) @context
                                          (_ name: (type_identifier) @context) @_tt]
                                  name: [(identifier) (operator_name)] @name) @_qid) @_fn) @_ref]) @definition.method
  (#kind-is? @_fn function_declarator) (#kind-is? @_qid qualified_identifier) (#kind-is? @_tt template_type)
  (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))

; --- Free functions ------------------------------------------------------------------------------

((function_definition
   declarator: [(_ declarator: [(identifier) (operator_name)] @name) @_fn
                (_ declarator: (_ declarator: [(identifier) (operator_name)] @name) @_fn) @_ptr
                (_ declarator: (_ declarator: (_ declarator: [(identifier) (operator_name)] @name) @_fn) @_ptr) @_ptr
                (_ (_ declarator: [(identifier) (operator_name)] @name) @_fn) @_ref]) @definition.function
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))

; Prototypes at namespace scope (in a header, inside its include guard). A declaration is at
; namespace scope when its parent is one of seven kinds (a copy of the pattern per parent kind
; made this query take 0.8 s to compile).
((declaration
  declarator: [(_ declarator: [(identifier) (operator_name)] @name) @_fn
               (_ declarator: (_ declarator: [(identifier) (operator_name)] @name) @_fn) @_ptr
               (_ declarator: (_ declarator: (_ declarator: [(identifier) (operator_name)] @name) @_fn) @_ptr) @_ptr
               (_ (_ declarator: [(identifier) (operator_name)] @name) @_fn) @_ref]) @declaration.function
  (#parent-is? @declaration.function translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif)
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))
((template_declaration
  (_
    declarator: [(_ declarator: [(identifier) (operator_name)] @name) @_fn
                 (_ declarator: (_ declarator: [(identifier) (operator_name)] @name) @_fn) @_ptr
                 (_ (_ declarator: [(identifier) (operator_name)] @name) @_fn) @_ref]) @declaration.function) @_scope
  (#parent-is? @_scope translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif)
  (#kind-is? @declaration.function declaration)
  (#kind-is? @_fn function_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))

; --- Types ---------------------------------------------------------------------------------------

(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

((class_specifier name: [(type_identifier) @name (_ name: (type_identifier) @name) @_tt] body: (_)) @definition.class
  (#kind-is? @_tt template_type))
((struct_specifier name: [(type_identifier) @name (_ name: (type_identifier) @name) @_tt] body: (_)) @definition.struct
  (#kind-is? @_tt template_type))
((union_specifier name: [(type_identifier) @name (_ name: (type_identifier) @name) @_tt] body: (_)) @definition.union
  (#kind-is? @_tt template_type))
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member

((type_definition
  declarator: [(type_identifier) @name
               (_ declarator: (type_identifier) @name) @_ptr
               (_ declarator: (_ (_ declarator: (type_identifier) @name) @_ptr) @_paren) @_fn]) @definition.type
  (#kind-is? @_ptr pointer_declarator) (#kind-is? @_paren parenthesized_declarator) (#kind-is? @_fn function_declarator))
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; --- Namespace-scope variables -------------------------------------------------------------------
; Patterns exclude each other so that `int a, b;` gives each name once.

; `extern int x;` only declares.
((declaration
  (storage_class_specifier) @_extern
  declarator: [(identifier) @name
              (_ declarator: (identifier) @name) @_ptr
              (_ declarator: (identifier) @name) @_arr
              (_
                declarator: [(identifier) @name
                             (_ declarator: (identifier) @name) @_ptr
                             (_ (identifier) @name) @_ref
                             (_ declarator: (identifier) @name) @_arr]) @_init]) @declaration.variable
  (#eq? @_extern "extern")
  (#parent-is? @declaration.variable translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif)
  (#kind-is? @_ptr pointer_declarator) (#kind-is? @_arr array_declarator) (#kind-is? @_ref reference_declarator)
  (#kind-is? @_init init_declarator))

; `const`, `constexpr` and `constinit` variables are constants.
((declaration
  (storage_class_specifier)* @_storage
  (type_qualifier) @_const
  declarator: [(identifier) @name
              (_ declarator: (identifier) @name) @_ptr
              (_ declarator: (identifier) @name) @_arr
              (_
                declarator: [(identifier) @name
                             (_ declarator: (identifier) @name) @_ptr
                             (_ (identifier) @name) @_ref
                             (_ declarator: (identifier) @name) @_arr]) @_init]) @definition.constant
  (#not-eq? @_storage "extern")
  (#match? @_const "^(const|constexpr|constinit)$")
  (#parent-is? @definition.constant translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif)
  (#kind-is? @_ptr pointer_declarator) (#kind-is? @_arr array_declarator) (#kind-is? @_ref reference_declarator)
  (#kind-is? @_init init_declarator))

((declaration
  (storage_class_specifier)* @_storage
  (type_qualifier)* @_qualifier
  declarator: [(identifier) @name
              (_ declarator: (identifier) @name) @_ptr
              (_ declarator: (identifier) @name) @_arr
              (_
                declarator: [(identifier) @name
                             (_ declarator: (identifier) @name) @_ptr
                             (_ (identifier) @name) @_ref
                             (_ declarator: (identifier) @name) @_arr]) @_init]) @definition.variable
  (#not-eq? @_storage "extern")
  (#not-match? @_qualifier "^(const|constexpr|constinit)$")
  (#parent-is? @definition.variable translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif)
  (#kind-is? @_ptr pointer_declarator) (#kind-is? @_arr array_declarator) (#kind-is? @_ref reference_declarator)
  (#kind-is? @_init init_declarator))

; --- References, for the symbol graph -------------------------------------------------------------
; Calls (plain, qualified, member, template), instantiations, includes, type names, and names
; passed as arguments or given as initializer values. Parameters and locals are local. As in C,
; no catch-all identifier capture.

((call_expression
   function: [(identifier) @name
              (_ name: (identifier) @name) @_qid
              (_ field: (field_identifier) @name) @_field
              (_ name: (identifier) @name) @_tf
              (_ name: (_ name: (identifier) @name) @_tf) @_qid]) @reference.call
  (#kind-is? @_qid qualified_identifier) (#kind-is? @_field field_expression) (#kind-is? @_tf template_function))
(new_expression type: (type_identifier) @name) @reference.class
(preproc_include path: [(string_literal) (system_lib_string)] @name) @reference.import
(type_identifier) @name @reference.type
(argument_list (identifier) @name) @reference.name
(init_declarator value: (identifier) @name) @reference.name
((parameter_declaration declarator: [(identifier) @local.definition
                                     (_ declarator: (identifier) @local.definition) @_ptr
                                     (_ (identifier) @local.definition) @_ref])
  (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))
((declaration declarator: [(identifier) @local.definition
                           (_ declarator: (identifier) @local.definition) @_init
                           (_ declarator: (_ declarator: (identifier) @local.definition) @_ptr) @_init
                           (_ declarator: (_ (identifier) @local.definition) @_ref) @_init]) @_decl
  (#parent-is? @_decl compound_statement)
  (#kind-is? @_init init_declarator) (#kind-is? @_ptr pointer_declarator) (#kind-is? @_ref reference_declarator))
((type_parameter_declaration (type_identifier) @local.definition) @_type
  (#parent-is? @_type template_parameter_list))
