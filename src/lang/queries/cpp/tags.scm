; C++ definitions.
;
; Functions and methods are found by the name inside their declarator, which may be wrapped
; in pointer or reference declarators (`Foo *make()`, `const T &get()`). When several patterns
; capture one node, the first wins: members come before free functions.

; --- Members defined or declared inside a class body ------------------------------------------

; A constructor is a member function without a return type.
(field_declaration_list
  [(function_definition
     !type
     declarator: [(function_declarator declarator: (identifier) @name)
                  (reference_declarator (function_declarator declarator: (identifier) @name))]) @definition.constructor
   (template_declaration
     (function_definition
       !type
       declarator: (function_declarator declarator: (identifier) @name)) @definition.constructor)])

; Methods, operators and destructors; a member template names its method by an identifier.
(field_declaration_list
  [(function_definition
     declarator: [(function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
                  (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
                  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)))
                  (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))]) @definition.method
   (template_declaration
     (function_definition
       declarator: [(function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name)
                    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
                    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))]) @definition.method)])

; Member prototypes: constructors and destructors parse as `declaration`s, the rest as
; `field_declaration`s.
(field_declaration_list
  [(declaration !type declarator: (function_declarator declarator: (identifier) @name)) @declaration.constructor
   (template_declaration
     (declaration !type declarator: (function_declarator declarator: (identifier) @name)) @declaration.constructor)])
(field_declaration_list
  (declaration declarator: (function_declarator declarator: (destructor_name) @name)) @declaration.method)
(field_declaration_list
  [(field_declaration
     declarator: [(function_declarator declarator: [(field_identifier) (operator_name)] @name)
                  (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
                  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name)))
                  (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))]) @declaration.method
   (template_declaration
     (declaration
       declarator: [(function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name)
                    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
                    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))]) @declaration.method)])

; Data members, one per declarator (`int a, b;`).
(field_declaration_list
  (field_declaration
    declarator: [(field_identifier) @name
                 (pointer_declarator declarator: (field_identifier) @name)
                 (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
                 (reference_declarator (field_identifier) @name)
                 (array_declarator declarator: (field_identifier) @name)
                 (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))]) @definition.field)

; --- Members defined outside their class: `Shape::area`, `Stack<T>::push` ---------------------
; The class qualifies the name through @context. Only the innermost scope of `ns::Shape::area`
; is kept: a context is one node. A qualified name may also be a namespace's function
; (`detail::distance`); the syntax cannot tell, and member definitions are far more common.

(function_definition
  declarator: (function_declarator
                declarator: [(qualified_identifier
                               scope: [(namespace_identifier) @context
                                       (template_type name: (type_identifier) @context)]
                               name: (identifier) @name)
                             (qualified_identifier
                               name: (qualified_identifier
                                       scope: [(namespace_identifier) @context
                                               (template_type name: (type_identifier) @context)]
                                       name: (identifier) @name))])
  (#eq? @context @name)) @definition.constructor

(function_definition
  declarator: [(function_declarator
                 declarator: [(qualified_identifier
                                scope: [(namespace_identifier) @context
                                        (template_type name: (type_identifier) @context)]
                                name: [(identifier) (operator_name) (destructor_name)] @name)
                              (qualified_identifier
                                name: (qualified_identifier
                                        scope: [(namespace_identifier) @context
                                                (template_type name: (type_identifier) @context)]
                                        name: [(identifier) (operator_name) (destructor_name)] @name))])
               (pointer_declarator
                 declarator: (function_declarator
                               declarator: (qualified_identifier
                                             scope: [(namespace_identifier) @context
                                                     (template_type name: (type_identifier) @context)]
                                             name: [(identifier) (operator_name)] @name)))
               (reference_declarator
                 (function_declarator
                   declarator: (qualified_identifier
                                 scope: [(namespace_identifier) @context
                                         (template_type name: (type_identifier) @context)]
                                 name: [(identifier) (operator_name)] @name)))]) @definition.method

; --- Free functions ------------------------------------------------------------------------------

(function_definition
  declarator: [(function_declarator declarator: [(identifier) (operator_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name)))
               (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))]) @definition.function

; Prototypes at namespace scope (in a header, inside its include guard). A declaration is at
; namespace scope when its parent is one of seven kinds: `#parent-is?` is checked by the
; extractor (a copy of the pattern per parent kind made this query take 0.8 s to compile).
((declaration
  declarator: [(function_declarator declarator: [(identifier) (operator_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name)))
               (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))]) @declaration.function
  (#parent-is? @declaration.function translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif))
((template_declaration
  (declaration
    declarator: [(function_declarator declarator: [(identifier) (operator_name)] @name)
                 (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
                 (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))]) @declaration.function) @_scope
  (#parent-is? @_scope translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif))

; --- Types ---------------------------------------------------------------------------------------

(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

(class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
(struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
(union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member

(type_definition
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)
               (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type
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
              (pointer_declarator declarator: (identifier) @name)
              (array_declarator declarator: (identifier) @name)
              (init_declarator
                declarator: [(identifier) @name
                             (pointer_declarator declarator: (identifier) @name)
                             (reference_declarator (identifier) @name)
                             (array_declarator declarator: (identifier) @name)])]) @declaration.variable
  (#eq? @_extern "extern")
  (#parent-is? @declaration.variable translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif))

; `const`, `constexpr` and `constinit` variables are constants.
((declaration
  (storage_class_specifier)* @_storage
  (type_qualifier) @_const
  declarator: [(identifier) @name
              (pointer_declarator declarator: (identifier) @name)
              (array_declarator declarator: (identifier) @name)
              (init_declarator
                declarator: [(identifier) @name
                             (pointer_declarator declarator: (identifier) @name)
                             (reference_declarator (identifier) @name)
                             (array_declarator declarator: (identifier) @name)])]) @definition.constant
  (#not-eq? @_storage "extern")
  (#match? @_const "^(const|constexpr|constinit)$")
  (#parent-is? @definition.constant translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif))

((declaration
  (storage_class_specifier)* @_storage
  (type_qualifier)* @_qualifier
  declarator: [(identifier) @name
              (pointer_declarator declarator: (identifier) @name)
              (array_declarator declarator: (identifier) @name)
              (init_declarator
                declarator: [(identifier) @name
                             (pointer_declarator declarator: (identifier) @name)
                             (reference_declarator (identifier) @name)
                             (array_declarator declarator: (identifier) @name)])]) @definition.variable
  (#not-eq? @_storage "extern")
  (#not-match? @_qualifier "^(const|constexpr|constinit)$")
  (#parent-is? @definition.variable translation_unit declaration_list linkage_specification
                preproc_ifdef preproc_if preproc_else preproc_elif))

; --- References, for the symbol graph -------------------------------------------------------------
; Calls (plain, qualified, member, template), instantiations, includes, type names, and names
; passed as arguments or given as initializer values. Parameters and locals are local. As in C,
; no catch-all identifier capture.

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (template_function name: (identifier) @name))) @reference.call
(new_expression type: (type_identifier) @name) @reference.class
(preproc_include path: [(string_literal) (system_lib_string)] @name) @reference.import
(type_identifier) @name @reference.type
(argument_list (identifier) @name) @reference.name
(init_declarator value: (identifier) @name) @reference.name
(parameter_declaration declarator: [(identifier) @local.definition
                                    (pointer_declarator declarator: (identifier) @local.definition)
                                    (reference_declarator (identifier) @local.definition)])
(compound_statement (declaration declarator: [(identifier) @local.definition
                                              (init_declarator declarator: (identifier) @local.definition)
                                              (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
                                              (init_declarator declarator: (reference_declarator (identifier) @local.definition))]))
(template_parameter_list (type_parameter_declaration (type_identifier) @local.definition))
